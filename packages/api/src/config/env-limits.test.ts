import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadEnv } from "./env";

const base = {
  OAUTH_JWT_SECRET: "o".repeat(40),
  PLUGIN_JWT_SECRET: "p".repeat(40),
  ENCRYPTION_KEY: "a".repeat(64),
  DATA_DIR: mkdtempSync(join(tmpdir(), "env-limits-")),
};

describe("limit settings", () => {
  it("default to enforcing, no trusted proxy and the rubricon: Redis prefix", () => {
    expect(loadEnv(base)).toMatchObject({
      rateLimitMode: "enforce",
      trustedProxyCount: 0,
      redisKeyPrefix: "rubricon:",
    });
  });

  it("read RATE_LIMIT_MODE, TRUSTED_PROXY_COUNT and REDIS_KEY_PREFIX", () => {
    expect(
      loadEnv({ ...base, RATE_LIMIT_MODE: "log", TRUSTED_PROXY_COUNT: "2", REDIS_KEY_PREFIX: "staging:" }),
    ).toMatchObject({ rateLimitMode: "log", trustedProxyCount: 2, redisKeyPrefix: "staging:" });
  });

  it("refuse values that would silently weaken limits", () => {
    expect(() => loadEnv({ ...base, RATE_LIMIT_MODE: "off" })).toThrow(/RATE_LIMIT_MODE/);
    expect(() => loadEnv({ ...base, TRUSTED_PROXY_COUNT: "-1" })).toThrow(/TRUSTED_PROXY_COUNT/);
    expect(() => loadEnv({ ...base, TRUSTED_PROXY_COUNT: "1.5" })).toThrow(/TRUSTED_PROXY_COUNT/);
    expect(() => loadEnv({ ...base, TRUSTED_PROXY_COUNT: "many" })).toThrow(/TRUSTED_PROXY_COUNT/);
    expect(() => loadEnv({ ...base, REDIS_KEY_PREFIX: "has space" })).toThrow(/REDIS_KEY_PREFIX/);
  });
});
