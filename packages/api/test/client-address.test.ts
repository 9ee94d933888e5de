import { ApiKeyList, WhoAmI } from "@rubricon/contracts";
import { afterAll, describe, expect, it } from "vitest";
import { bearer, bodyOf, call, mintApiKey, sessionHeaders, signUp } from "./helpers/clients";
import { startTestServer, type TestServer } from "./helpers/server";

/**
 * Which address a request is from, as the server records it (an API key's `lastUsedIp`, the address per-IP limits
 * count): behind the one proxy of compose.yaml it is the address that proxy wrote, whatever the client forged
 * before it; with no proxy it is the peer, and a client's X-Forwarded-For is ignored.
 */
const servers: TestServer[] = [];
afterAll(() => Promise.all(servers.map((s) => s.close())));

async function lastUsedIpAfter(server: TestServer, forwardedFor: string | null): Promise<string | null> {
  const user = await signUp(server, "address");
  const key = await mintApiKey(server, user, ["*"]);
  const headers = { ...bearer(key), ...(forwardedFor ? { "X-Forwarded-For": forwardedFor } : {}) };
  expect((await call(WhoAmI, `${server.api}/auth/whoami`, { headers })).status).toBe(200);
  let seen: string | null = null;
  await expect
    .poll(async () => {
      const keys = bodyOf(
        await call(ApiKeyList, `${server.api}/api-keys`, { headers: sessionHeaders(server, user) }),
      );
      seen = keys.data[0]?.lastUsedIp ?? null;
      return seen;
    })
    .not.toBeNull();
  return seen;
}

const LOOPBACK = /^(127\.0\.0\.1|::1)$/;

describe("the client's address", () => {
  it("behind one trusted proxy is the address the proxy wrote, not what the client forged before it", async () => {
    const server = await startTestServer({ env: { TRUSTED_PROXY_COUNT: "1" } });
    servers.push(server);
    expect(await lastUsedIpAfter(server, "6.6.6.6, 203.0.113.7")).toBe("203.0.113.7");
    expect(await lastUsedIpAfter(server, "198.51.100.20")).toBe("198.51.100.20");
    // A request that reached the process without the proxy (a probe on the host) is its peer's.
    expect(await lastUsedIpAfter(server, null)).toMatch(LOOPBACK);
  }, 120_000);

  it("with no proxy is the peer, whatever X-Forwarded-For the client sends", async () => {
    const server = await startTestServer({ env: { TRUSTED_PROXY_COUNT: "0" } });
    servers.push(server);
    expect(await lastUsedIpAfter(server, "203.0.113.7")).toMatch(LOOPBACK);
  }, 120_000);
});
