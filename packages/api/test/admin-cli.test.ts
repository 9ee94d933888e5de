import { execFile, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import type { Server } from "node:http";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { Evaluation, EvaluationList, Team } from "@rubricon/contracts";
import { createDatabase, type Database } from "@rubricon/db";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRubricon } from "../src/app";
import { loadEnv } from "../src/config/env";
import { listen } from "../src/http/node-server";
import { expectStatus } from "./helpers/assertions";
import { call } from "./helpers/clients";

const PACKAGE_DIR = resolve(import.meta.dirname, "..");
const SECRETS = {
  OAUTH_JWT_SECRET: "test-oauth-secret-0123456789abcdef0123456789",
  PLUGIN_JWT_SECRET: "test-plugin-secret-0123456789abcdef012345678",
  ENCRYPTION_KEY: "0".repeat(64),
};

/** Where the CLI and then the in-test app find the database: a fresh Postgres database, or a fresh PGlite directory. */
interface Target {
  env: Record<string, string>;
  open(): Database;
  dispose(): Promise<void>;
}

async function createTarget(): Promise<Target> {
  const dataDir = mkdtempSync(join(tmpdir(), "rubricon-admin-"));
  const adminUrl = process.env.DATABASE_URL;
  if (!adminUrl) {
    return {
      env: { DATA_DIR: dataDir },
      open: () => createDatabase({ dataDir: join(dataDir, "pglite") }),
      dispose: async () => rmSync(dataDir, { recursive: true, force: true }),
    };
  }
  const name = `rubricon_admin_${Date.now().toString(36)}_${randomBytes(4).toString("hex")}`;
  const admin = createDatabase({ url: adminUrl, maxConnections: 1 });
  await admin.db.execute(sql.raw(`CREATE DATABASE "${name}"`));
  await admin.close();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    env: { DATA_DIR: dataDir, DATABASE_URL: url.toString() },
    open: () => createDatabase({ url: url.toString(), maxConnections: 5 }),
    dispose: async () => {
      const cleanup = createDatabase({ url: adminUrl, maxConnections: 1 });
      await cleanup.db.execute(sql.raw(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`));
      await cleanup.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

let target: Target;

/**
 * Node module hooks that name every `@rubricon/*` package the CLI resolves, on stderr: how a test sees that help
 * and usage errors load nothing of the API, the domain or the database driver.
 */
function moduleTracer(): string {
  const dir = mkdtempSync(join(tmpdir(), "rubricon-admin-hooks-"));
  writeFileSync(
    join(dir, "hooks.mjs"),
    `export async function resolve(specifier, context, next) {
  if (specifier.startsWith("@rubricon/")) process.stderr.write("module " + specifier + "\\n");
  return next(specifier, context);
}\n`,
  );
  writeFileSync(
    join(dir, "register.mjs"),
    `import { register } from "node:module";\nregister("./hooks.mjs", import.meta.url);\n`,
  );
  return join(dir, "register.mjs");
}

function cli(...args: string[]): Promise<CliResult> {
  return cliWith([], args);
}

function cliWith(nodeArgs: string[], args: string[]): Promise<CliResult> {
  // vitest sets BASE_URL to "/" for its own use; the CLI must not read that, nor the outer DATABASE_URL.
  const { DATABASE_URL: _url, BASE_URL: _base, ...inherited } = process.env;
  return new Promise((done) => {
    execFile(
      process.execPath,
      [...nodeArgs, "--import", "tsx", "src/admin/cli.ts", ...args],
      {
        cwd: PACKAGE_DIR,
        env: { ...inherited, ...SECRETS, NODE_ENV: "test", ...target.env },
        timeout: 60_000,
      },
      (err, stdout, stderr) => {
        const code = err ? (typeof err.code === "number" ? err.code : 1) : 0;
        done({ code, stdout, stderr });
      },
    );
  });
}

/** The one JSON line a `--json` command prints; anything else on stdout is a failure. */
function jsonLine(result: CliResult): Record<string, unknown> {
  expect(result.stderr).toBe("");
  expect(result.code).toBe(0);
  const lines = result.stdout.split("\n").filter((l) => l.length > 0);
  expect(lines).toHaveLength(1);
  return JSON.parse(lines[0]!);
}

const BOOTSTRAP = [
  "bootstrap",
  "--email",
  "ops@example.com",
  "--password",
  "correct-horse",
  "--team",
  "Acme",
  "--plan",
  "pro",
  "--scopes",
  "*",
  "--json",
];

beforeAll(async () => {
  target = await createTarget();
});
afterAll(async () => {
  await target?.dispose();
});

describe("admin CLI", () => {
  let first: { userId: string; teamId: string; apiKey: string };
  let second: { userId: string; teamId: string; apiKey: string };

  it("bootstraps a user, team and key on a fresh database and prints one JSON line", async () => {
    const out = jsonLine(await cli(...BOOTSTRAP));
    expect(Object.keys(out).sort()).toEqual(["apiKey", "teamId", "userId"]);
    expect(out.userId).toMatch(/^usr_/);
    expect(out.teamId).toMatch(/^team_/);
    expect(out.apiKey).toMatch(/^ak_live_/);
    first = out as typeof first;
  }, 120_000);

  it("reuses the user and team on a second run and mints a new key", async () => {
    const out = jsonLine(
      await cli(
        "bootstrap",
        "--email",
        "OPS@example.com",
        "--team",
        "Acme",
        "--plan",
        "pro",
        "--scopes",
        "evaluations:*",
        "--json",
      ),
    );
    expect(out.userId).toBe(first.userId);
    expect(out.teamId).toBe(first.teamId);
    expect(out.apiKey).not.toBe(first.apiKey);
    second = out as typeof second;
  }, 120_000);

  it("changes a team's plan and custom limits", async () => {
    expect(jsonLine(await cli("set-plan", "--team", first.teamId, "--plan", "enterprise", "--json"))).toEqual(
      {
        teamId: first.teamId,
        plan: "enterprise",
      },
    );
    expect(
      jsonLine(await cli("set-limits", "--team", first.teamId, "--rpm", "1200", "--evals", "500", "--json")),
    ).toEqual({
      teamId: first.teamId,
      plan: "enterprise",
      customLimits: { requestsPerMinute: 1200, evaluations: 500 },
    });
  }, 120_000);

  it("fails with exit 1 for an unknown team and exit 2 for bad arguments", async () => {
    const unknown = await cli("set-plan", "--team", "team_doesnotexist", "--plan", "pro", "--json");
    expect(unknown.code).toBe(1);
    expect(unknown.stdout).toBe("");
    expect(unknown.stderr).toContain("No such team: team_doesnotexist");

    const badScope = await cli(
      "bootstrap",
      "--email",
      "x@example.com",
      "--password",
      "password123",
      "--team",
      "T",
      "--scopes",
      "evaluations:read,nope",
      "--json",
    );
    expect(badScope.code).toBe(2);
    expect(badScope.stdout).toBe("");
    expect(badScope.stderr).toContain("Unknown scope 'nope'");

    const badPlan = await cli("set-plan", "--team", first.teamId, "--plan", "platinum");
    expect(badPlan.code).toBe(2);
    const unknownFlag = await cli("set-plan", "--team", first.teamId, "--plan", "pro", "--colour");
    expect(unknownFlag.code).toBe(2);
    expect(unknownFlag.stderr).toContain("Usage:");
    const noCommand = await cli();
    expect(noCommand.code).toBe(2);
    const help = await cli("help");
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("bootstrap --email");
  }, 120_000);

  it("takes `pnpm admin -- help` and answers help and usage errors without loading the API", async () => {
    // pnpm hands the `--` separator on to the script.
    const separated = await cli("--", "help");
    expect(separated.code).toBe(0);
    expect(separated.stdout).toContain("set-limits --team");

    const tracer = moduleTracer();
    const traced = (...args: string[]) => cliWith(["--import", tracer], args);
    const loaded = (r: CliResult) => [...r.stderr.matchAll(/^module (@rubricon\/[\w-]+)/gm)].map((m) => m[1]);
    for (const args of [["help"], ["--", "help"], ["nope"], ["set-plan", "--colour"], []]) {
      const result = await traced(...args);
      expect(result.code, args.join(" ")).toBe(args.includes("help") ? 0 : 2);
      expect(loaded(result), args.join(" ")).toEqual([]);
    }
    // A bad plan needs only the contracts' list of plans.
    const badPlan = await traced("set-plan", "--team", "team_x", "--plan", "gold");
    expect(badPlan.code).toBe(2);
    expect(new Set(loaded(badPlan))).toEqual(new Set(["@rubricon/contracts"]));
    // The tracer does see a command that reaches the database.
    const real = await traced("set-plan", "--team", "team_doesnotexist", "--plan", "pro");
    expect(real.code).toBe(1);
    expect(loaded(real)).toContain("@rubricon/core");
  }, 120_000);

  it("mints keys that work against the API on the same database", async () => {
    // The CLI has exited, so the embedded database's directory is free to open here.
    const database = target.open();
    const { server, url } = await listen({
      handleNode: (req, res, forwardedFor) => app.handleNode(req, res, forwardedFor),
    });
    const env = loadEnv({
      ...SECRETS,
      NODE_ENV: "test",
      BASE_URL: url,
      ...target.env,
    });
    const app = await createRubricon({ env, database });
    try {
      const auth = (key: string) => ({
        authorization: `Bearer ${key}`,
        "content-type": "application/json",
      });
      const created = await call(Evaluation, `${url}/api/v1/evaluations`, {
        method: "POST",
        headers: auth(first.apiKey),
        body: {
          name: "Checkout",
          type: "SSE",
          designUrls: [{ url: "https://example.com/a" }],
        },
      });
      expectStatus(created, 201);
      const evaluation = created.body;
      expect(evaluation.teamId).toBe(first.teamId);

      const listed = await call(EvaluationList, `${url}/api/v1/evaluations`, {
        headers: auth(second.apiKey),
      });
      expectStatus(listed, 200);
      expect(listed.body.data.map((e) => e.id)).toEqual([evaluation.id]);

      const team = await call(Team, `${url}/api/v1/teams/${first.teamId}`, {
        headers: auth(first.apiKey),
      });
      expect(team.status).toBe(200);
      expect(team.body).toMatchObject({
        id: first.teamId,
        name: "Acme",
        plan: "enterprise",
      });

      if (database.kind === "pglite") {
        // While this process holds the embedded database, the CLI must refuse rather than open it a second time.
        const busy = await cli("set-plan", "--team", first.teamId, "--plan", "pro");
        expect(busy.code).toBe(1);
        expect(busy.stderr).toContain("in use by process");
      }
    } finally {
      await new Promise<void>((done) => (server as Server).close(() => done()));
      await database.close();
    }
  }, 120_000);
});

describe("help and argument errors", () => {
  it("accept the `--` that `pnpm admin -- help` passes on, and load none of the app", async () => {
    // Settings that would stop any command that loads them: help must not get that far.
    const saved = target.env;
    target = { ...target, env: { ...saved, DATABASE_URL: "not a url", PORT: "eighty" } };
    try {
      const help = await cli("--", "help");
      expect(help.code).toBe(0);
      expect(help.stdout).toContain("Usage: pnpm --silent admin <command>");
      const badPlan = await cli("--", "set-plan", "--team", "team_x", "--plan", "gold");
      expect(badPlan.code).toBe(2);
      expect(badPlan.stderr).toContain("Unknown plan 'gold'");
      const unknown = await cli("--", "frobnicate");
      expect(unknown.code).toBe(2);
      expect(unknown.stderr).toContain("Unknown command 'frobnicate'.");
      // A real command does load the settings, and says which one is wrong.
      const real = await cli("--", "set-plan", "--team", "team_x", "--plan", "pro");
      expect(real.code).toBe(1);
      expect(real.stderr).toMatch(/Invalid configuration: .*DATABASE_URL|Invalid configuration: .*PORT/);
    } finally {
      target = { ...target, env: saved };
    }
  }, 120_000);

  it("`pnpm admin` runs the production build's bundle, and says how to build it when it is missing", () => {
    // The launcher the root `admin` script runs, in a checkout where `pnpm build` has not run yet.
    const checkout = mkdtempSync(join(tmpdir(), "rubricon-admin-launcher-"));
    try {
      mkdirSync(join(checkout, "tooling", "scripts"), { recursive: true });
      const launcher = join(checkout, "tooling", "scripts", "admin.mjs");
      copyFileSync(resolve(PACKAGE_DIR, "../../tooling/scripts/admin.mjs"), launcher);
      const result = spawnSync(process.execPath, [launcher, "--", "help"], { encoding: "utf8" });
      expect(result.status).toBe(1);
      expect(result.stdout).toBe("");
      expect(result.stderr).toContain("The admin CLI is not built yet: run `pnpm build` first");
      expect(result.stderr).toContain("dist/apps/web/admin.mjs");
    } finally {
      rmSync(checkout, { recursive: true, force: true });
    }
  });
});
