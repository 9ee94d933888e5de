import { connect } from "node:net";

/** Where a developer's Redis usually is; the tests use it when `REDIS_URL` is not set. */
export const LOCAL_REDIS_URL = "redis://127.0.0.1:6379";
const START_COMMAND = 'redis-server --daemonize yes --bind 127.0.0.1 --port 6379 --save "" --appendonly no';

/** Answers once the server at `url` replies to a PING (any reply: a password-protected one answers NOAUTH). */
function ping(url, timeoutMs = 2000) {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect({ host: hostname.replace(/^\[|\]$/g, ""), port: Number(port || 6379) });
    const fail = (err) => {
      socket.destroy();
      reject(err);
    };
    socket.setTimeout(timeoutMs, () => fail(new Error(`no answer within ${timeoutMs} ms`)));
    socket.once("error", fail);
    socket.once("connect", () => socket.write("PING\r\n"));
    socket.once("data", (data) => {
      socket.destroy();
      if (/^[+-]/.test(data.toString())) resolve();
      else reject(new Error(`unexpected reply ${JSON.stringify(data.toString().slice(0, 40))}`));
    });
  });
}

let resolved;

/**
 * The Redis the tests run the rate-limit window on: `REDIS_URL`, else one on 127.0.0.1:6379. Tests never skip
 * for want of Redis; without one they fail with this message.
 */
export function testRedisUrl() {
  resolved ??= (async () => {
    const url = process.env.REDIS_URL || LOCAL_REDIS_URL;
    // TLS (rediss://) cannot be probed with a plain socket; the app's own connect reports its failures.
    if (new URL(url).protocol !== "redis:") return url;
    try {
      await ping(url);
      return url;
    } catch (err) {
      const where = process.env.REDIS_URL
        ? `at REDIS_URL (${url})`
        : `at ${LOCAL_REDIS_URL} (REDIS_URL is not set)`;
      throw new Error(
        `The tests need Redis and none answers ${where}: ${err.message}.\n` +
          `Start one with:\n  ${START_COMMAND}\n` +
          "or set REDIS_URL to a Redis of your own.",
      );
    }
  })();
  return resolved;
}

/** Vitest global setup: fails the run at once, with one message, when there is no Redis. */
export async function setup() {
  await testRedisUrl();
}
