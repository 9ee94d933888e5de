import { Redis } from "ioredis";
import { redisRoundTrip } from "../observability/instrument";
import { log } from "../observability/logger";
import type { SlidingWindow, WindowRequest, WindowState } from "../request/services";

/**
 * One atomic step over a sorted set of accepted instants (score = ms): drop what left the window, count, add this
 * request if there is room, and report the oldest instant still counted. Redis runs a script alone, so instances
 * sharing the key can never together accept more than `limit`; ioredis sends it by SHA, one round trip.
 *
 * KEYS[1] the window; ARGV: now ms, window ms, limit, member id, consume (1/0), now minus window ms. Instants go
 * to Redis as the strings they came as: Lua would print a large number in exponent notation.
 */
const HIT_SCRIPT = `
local limit = tonumber(ARGV[3])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[6])
local count = redis.call('ZCARD', KEYS[1])
local allowed = 0
if count < limit then
  allowed = 1
  if ARGV[5] == '1' then
    redis.call('ZADD', KEYS[1], ARGV[1], ARGV[4])
    redis.call('PEXPIRE', KEYS[1], ARGV[2])
    count = count + 1
  end
end
local oldest = tonumber(ARGV[1])
local first = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
if first[2] then oldest = tonumber(first[2]) end
return {allowed, count, oldest}
`;

type HitCommand = (
  key: string,
  now: string,
  windowMs: string,
  limit: string,
  id: string,
  consume: string,
  cutoff: string,
) => Promise<[number, number, number]>;

/** The window in Redis, shared by every app instance that uses the same Redis and key prefix. */
export class RedisSlidingWindow implements SlidingWindow {
  private readonly hitCommand: HitCommand;

  constructor(
    readonly redis: Redis,
    private readonly prefix: string,
  ) {
    redis.defineCommand("rubriconWindowHit", { numberOfKeys: 1, lua: HIT_SCRIPT });
    this.hitCommand = (redis as unknown as { rubriconWindowHit: HitCommand }).rubriconWindowHit.bind(redis);
  }

  /**
   * Connects before the app serves anything, so a wrong or silent REDIS_URL fails at start. Later, a command
   * fails fast instead of waiting: at once while Redis refuses connections (`enableOfflineQueue: false`), within
   * `commandTimeoutMs` while it accepts and never answers; the caller then serves without a limit. A command that
   * timed out drops the connection, so the ones after it fail at once until a reconnect gets an answer again.
   */
  static async connect(url: string, prefix: string, commandTimeoutMs = 500): Promise<RedisSlidingWindow> {
    const redis = new Redis(url, {
      lazyConnect: true,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 1,
      // No wall-clock connect timeout: the deadline below counts only time the event loop was free.
      connectTimeout: 0,
    });
    let lastReport = 0;
    redis.on("error", (err: Error) => {
      // ioredis retries on its own; one line a minute is enough to tell an operator.
      if (Date.now() - lastReport < 60_000) return;
      lastReport = Date.now();
      log().error({ err: { message: err.message } }, "Redis (rate limits) unavailable");
    });
    let timer: NodeJS.Timeout | undefined;
    try {
      // The connect timeout covers TCP only; a server that accepts and stays silent would hang the start.
      // Counted in turns of the event loop, 20 of 250 ms: a start that holds the loop (migrating an embedded
      // database, loading the app) must not count that time against Redis, whose answer waits behind it.
      await Promise.race([
        redis.connect(),
        new Promise((_, reject) => {
          let turns = 0;
          const tick = () => {
            if (++turns >= 20) reject(new Error("no answer within 5 s"));
            else timer = setTimeout(tick, 250);
          };
          timer = setTimeout(tick, 250);
        }),
      ]);
    } catch (err) {
      redis.disconnect();
      throw new Error(`Cannot reach Redis at REDIS_URL: ${(err as Error).message}`);
    } finally {
      clearTimeout(timer);
    }
    // Commands time out only once connected: a start busy loading the app (its event loop held for longer than a
    // command's budget) would otherwise time out the connection's own ready check and never get going.
    redis.options.commandTimeout = commandTimeoutMs;
    return new RedisSlidingWindow(redis, prefix);
  }

  /** A command timed out: the connection is presumed hung, and is dropped and reopened. */
  private dropHungConnection(err: unknown): void {
    if (!(err instanceof Error) || err.message !== "Command timed out") return;
    if (this.redis.status === "ready") this.redis.disconnect(true);
  }

  async hit({ key, limit, windowMs, nowMs, id, consume = true }: WindowRequest): Promise<WindowState> {
    const [allowed, count, oldest] = await redisRoundTrip("window_hit", () =>
      this.hitCommand(
        `${this.prefix}rl:${key}`,
        String(nowMs),
        String(windowMs),
        String(limit),
        id,
        consume ? "1" : "0",
        String(nowMs - windowMs),
      ).catch((err: unknown) => {
        this.dropHungConnection(err);
        throw err;
      }),
    );
    return {
      allowed: allowed === 1,
      limit,
      remaining: Math.max(0, limit - count),
      resetMs: Number(oldest) + windowMs,
    };
  }

  async close(): Promise<void> {
    await this.redis.quit().catch(() => this.redis.disconnect());
  }
}
