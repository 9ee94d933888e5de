import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadEnv } from "./env";

const secrets = {
  OAUTH_JWT_SECRET: "o".repeat(40),
  PLUGIN_JWT_SECRET: "p".repeat(40),
  ENCRYPTION_KEY: "a".repeat(64),
};

describe("loadEnv", () => {
  it("applies defaults: port 3000, localhost base URL, embedded database", () => {
    const env = loadEnv({
      ...secrets,
      DATA_DIR: mkdtempSync(join(tmpdir(), "env-")),
    });
    expect(env.port).toBe(3000);
    expect(env.baseUrl).toBe("http://localhost:3000");
    expect(env.databaseUrl).toBeUndefined();
    expect(env.databasePrepareStatements).toBe(true);
  });

  it("generates development secrets once and keeps them under the data directory", () => {
    const dataDir = mkdtempSync(join(tmpdir(), "env-"));
    const first = loadEnv({ DATA_DIR: dataDir });
    const second = loadEnv({ DATA_DIR: dataDir });
    expect(first.encryptionKey).toMatch(/^[0-9a-f]{64}$/);
    expect(second.oauthJwtSecret).toBe(first.oauthJwtSecret);
    expect(first.oauthJwtSecret).not.toBe(first.pluginJwtSecret);
    const file = join(dataDir, "dev-secrets.json");
    expect(existsSync(file)).toBe(true);
    expect(JSON.parse(readFileSync(file, "utf8")).PLUGIN_JWT_SECRET).toBe(first.pluginJwtSecret);
  });

  it("refuses to start a production deployment without its secrets, naming them", () => {
    expect(() =>
      loadEnv({
        NODE_ENV: "production",
        BASE_URL: "https://rubricon.example",
        DATA_DIR: tmpdir(),
      }),
    ).toThrow(/OAUTH_JWT_SECRET, PLUGIN_JWT_SECRET, ENCRYPTION_KEY/);
    expect(() =>
      loadEnv({
        NODE_ENV: "production",
        BASE_URL: "https://rubricon.example",
        ...secrets,
        ENCRYPTION_KEY: undefined,
      }),
    ).toThrow(/ENCRYPTION_KEY/);
    const env = loadEnv({
      NODE_ENV: "production",
      BASE_URL: "https://rubricon.example/",
      ...secrets,
    });
    expect(env.baseUrl).toBe("https://rubricon.example");
  });

  it("refuses production without BASE_URL, which would otherwise be taken for a local trial", () => {
    expect(() => loadEnv({ NODE_ENV: "production", ...secrets })).toThrow(/no BASE_URL/);
  });

  it("treats a production build on a loopback origin as a local trial", () => {
    const env = loadEnv({
      NODE_ENV: "production",
      PORT: "4000",
      BASE_URL: "http://localhost:4000",
      DATA_DIR: mkdtempSync(join(tmpdir(), "env-")),
    });
    expect(env.baseUrl).toBe("http://localhost:4000");
    expect(env.oauthJwtSecret.length).toBeGreaterThanOrEqual(32);
  });

  it("rejects malformed settings with the variable's name", () => {
    expect(() => loadEnv({ ...secrets, PORT: "abc" })).toThrow(/PORT/);
    expect(() => loadEnv({ ...secrets, ENCRYPTION_KEY: "short" })).toThrow(/ENCRYPTION_KEY/);
    expect(() => loadEnv({ ...secrets, DATABASE_URL: "not a url" })).toThrow(/DATABASE_URL/);
    expect(() => loadEnv({ ...secrets, DATABASE_PREPARE_STATEMENTS: "no" })).toThrow(
      /DATABASE_PREPARE_STATEMENTS/,
    );
    expect(loadEnv({ ...secrets, DATABASE_PREPARE_STATEMENTS: "false" }).databasePrepareStatements).toBe(
      false,
    );
  });
});
