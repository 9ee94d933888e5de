import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createTestDatabase, type TestDatabase } from "@rubricon/db/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SERVER_MAIN, startProcess, WORKER_MAIN } from "./helpers/process";
import { TEST_SECRETS } from "./helpers/server";

/**
 * A process that cannot start says why in one line on stderr and exits 1: no driver wrapper message, no stack
 * trace, no credentials. Both entries (web server and worker) share the start-up path.
 */
const PG = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
let database: TestDatabase;
let dataDir: string;

beforeAll(async () => {
  database = await createTestDatabase({ ...process.env, DATABASE_URL: PG });
  dataDir = mkdtempSync(join(tmpdir(), "rubricon-startup-"));
});
afterAll(() => database?.dispose());

function withDb(url: string): string {
  const u = new URL(PG);
  const given = new URL(url);
  u.pathname = given.pathname;
  if (given.port) u.port = given.port;
  if (given.password) u.password = given.password;
  return u.toString();
}

async function failure(script: string, env: Record<string, string>): Promise<string> {
  const proc = startProcess(script, { ...TEST_SECRETS, NODE_ENV: "test", DATA_DIR: dataDir, ...env });
  expect(await proc.exited).toBe(1);
  // oidc-provider warns about Node 20 on every start, before anything of ours runs.
  const lines = proc
    .stderr()
    .trim()
    .split("\n")
    .filter((l) => !l.startsWith("oidc-provider WARNING"));
  expect(lines, proc.stderr()).toHaveLength(1);
  expect(lines[0]).not.toMatch(/Failed query|\n\s+at /);
  return lines[0]!;
}

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as { port: number };
  await new Promise((r) => server.close(r));
  return port;
}

// Each test starts Node processes that compile TypeScript as they load; on a busy CI machine that alone takes tens
// of seconds, so the limits only catch a start that hangs.
describe("start-up failures", () => {
  it("names a database that does not exist", async () => {
    const line = await failure(SERVER_MAIN, { DATABASE_URL: withDb("postgres://x/rubricon_no_such_db") });
    expect(line).toBe(
      'server failed to start: opening the database (DATABASE_URL): database "rubricon_no_such_db" does not exist',
    );
  }, 240_000);

  it("names a closed port, without the password", async () => {
    const port = await closedPort();
    const line = await failure(WORKER_MAIN, {
      DATABASE_URL: `postgres://postgres:hunter2secret@127.0.0.1:${port}/postgres`,
    });
    expect(line).toContain(
      "worker failed to start: opening the database (DATABASE_URL): connect ECONNREFUSED",
    );
    expect(line).toContain(`127.0.0.1:${port}`);
    expect(line).not.toContain("hunter2secret");
  }, 240_000);

  it("refuses production without secrets in one line", async () => {
    const line = await failure(SERVER_MAIN, {
      NODE_ENV: "production",
      BASE_URL: "https://rubricon.example",
      OAUTH_JWT_SECRET: "",
      PLUGIN_JWT_SECRET: "",
      ENCRYPTION_KEY: "",
      DATABASE_URL: database.url!,
    });
    expect(line).toMatch(
      /^server failed to start: Refusing to start in production .* without OAUTH_JWT_SECRET/,
    );
  }, 240_000);

  it("checks at start that the file store can be written", async () => {
    // /sys refuses new directories even to root, as a read-only mount refuses everyone.
    for (const script of [SERVER_MAIN, WORKER_MAIN]) {
      const line = await failure(script, { DATABASE_URL: database.url!, DATA_DIR: "/sys/rubricon-data" });
      expect(line).toMatch(
        /failed to start: the file store \(DATA_DIR\/files\) at \/sys\/rubricon-data\/files is not writable: .*EPERM/,
      );
    }
  }, 240_000);

  it("names a malformed setting and an unknown one", async () => {
    expect(await failure(SERVER_MAIN, { DATABASE_URL: database.url!, PORT: "eighty" })).toMatch(
      /^server failed to start: Invalid configuration: PORT: /,
    );
    expect(await failure(WORKER_MAIN, { DATABASE_URL: database.url!, SHUTDOWN_TIMEOUT_MS: "-5" })).toMatch(
      /^worker failed to start: Invalid configuration: SHUTDOWN_TIMEOUT_MS: /,
    );
    expect(await failure(WORKER_MAIN, { DATABASE_URL: database.url!, AUTOUSER_CONCURENCY: "4" })).toBe(
      "worker failed to start: Invalid configuration: AUTOUSER_CONCURENCY: not a setting (see docs/operations.md for the list).",
    );
  }, 240_000);

  it("names a port already in use", async () => {
    const taken = createServer();
    await new Promise<void>((r) => taken.listen(0, r));
    const { port } = taken.address() as { port: number };
    try {
      const line = await failure(SERVER_MAIN, { DATABASE_URL: database.url!, PORT: String(port) });
      expect(line).toContain(`server failed to start: listening on port ${port} (PORT): listen EADDRINUSE`);
    } finally {
      taken.close();
    }
  }, 240_000);
});

describe(".env", () => {
  it("is read from the working directory; the environment wins over it", async () => {
    const dir = mkdtempSync(join(tmpdir(), "rubricon-dotenv-"));
    mkdirSync(join(dir, "data"));
    const port = await closedPort();
    writeFileSync(
      join(dir, ".env"),
      [
        "# settings for this install",
        `DATABASE_URL=${database.url}`,
        `PORT=${port}`,
        `DATA_DIR=${join(dir, "data")}`,
        "LOG_LEVEL=info",
        "SHUTDOWN_TIMEOUT_MS=not-used-env-wins",
      ].join("\n"),
    );
    const proc = startProcess(
      SERVER_MAIN,
      { ...TEST_SECRETS, NODE_ENV: "test", SHUTDOWN_TIMEOUT_MS: "2000" },
      dir,
    );
    try {
      await proc.waitFor(`Rubricon ready on http://localhost:${port}`);
      const res = await fetch(`http://127.0.0.1:${port}/api/v1/evaluations`);
      expect(res.status).toBe(401);
      expect(proc.stdout()).toContain(join(dir, ".env"));
    } finally {
      proc.child.kill("SIGTERM");
      expect(await proc.exited).toBe(0);
    }
  }, 240_000);
});
