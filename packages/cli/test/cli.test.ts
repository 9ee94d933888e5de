import { readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { VERSION } from "../src/version";
import {
  createAccount,
  type Installed,
  installPacked,
  PACKAGE_JSON,
  type Result,
  type RunOptions,
  runCli,
  startTestServer,
  type TestAccount,
  type TestServer,
  tempDir,
} from "./helpers/cli";

let server: TestServer;
let account: TestAccount;
let cli: Installed;
let configDir: string;
let work: string;

beforeAll(async () => {
  [server, cli] = await Promise.all([startTestServer(), installPacked()]);
  account = await createAccount(server);
  configDir = tempDir("config");
  work = tempDir("work");
}, 240_000);
afterAll(() => server?.close());

/** `rubricon` from the installed tarball, pointed at the test server with the account's key. */
function rubricon(args: string[], opts: RunOptions = {}): Promise<Result> {
  return runCli(cli.bin, args, {
    cwd: work,
    ...opts,
    env: {
      RUBRICON_BASE_URL: server.url,
      RUBRICON_API_KEY: account.apiKey,
      RUBRICON_CONFIG_DIR: configDir,
      ...opts.env,
    },
  });
}

function json<T = Record<string, unknown>>(result: Result): T {
  expect(result.stderr).toBe("");
  expect(result.code).toBe(0);
  return JSON.parse(result.stdout) as T;
}

async function evaluationCount(): Promise<number> {
  const res = await fetch(`${server.api}/evaluations?limit=100`, {
    headers: { Authorization: `Bearer ${account.apiKey}` },
  });
  return ((await res.json()) as { data: unknown[] }).data.length;
}

describe("the packed package", () => {
  it("has one bundled file and no runtime dependencies", async () => {
    expect(PACKAGE_JSON.dependencies ?? {}).toEqual({});
    expect(VERSION).toBe(PACKAGE_JSON.version);
    const version = await rubricon(["--version"]);
    expect(version).toEqual({ code: 0, stdout: `${PACKAGE_JSON.version}\n`, stderr: "" });
  });

  it("answers help for every command", async () => {
    const top = await rubricon(["--help"]);
    expect(top.code).toBe(0);
    const commands = [
      "login",
      "logout",
      "whoami",
      "evaluations",
      "comparisons",
      "templates",
      "autousers",
      "ratings",
      "results",
      "agreement",
      "webhooks",
      "events",
      "api-keys",
      "usage",
    ];
    for (const c of commands) expect(top.stdout).toContain(c);
    for (const sub of [
      ["evaluations", "create"],
      ["evaluations", "export"],
      ["webhooks", "create"],
      ["whoami"],
    ]) {
      const help = await rubricon([...sub, "--help"]);
      expect(help.code, sub.join(" ")).toBe(0);
      expect(help.stdout).toContain(`Usage: rubricon ${sub.join(" ")}`);
    }
  });
});

describe("evaluations", () => {
  it("creates from flags, lists and gets with --json", async () => {
    const created = json(
      await rubricon([
        "evaluations",
        "create",
        "--name",
        "Checkout from the CLI",
        "--type",
        "SSE",
        "--url",
        "https://example.com/checkout",
        "--json",
      ]),
    );
    expect(created).toMatchObject({
      object: "evaluation",
      name: "Checkout from the CLI",
      type: "SSE",
      comparisonCount: 1,
    });

    const listed = json<{ object: string; data: { id: string }[] }>(
      await rubricon(["evaluations", "list", "--json"]),
    );
    expect(listed.object).toBe("list");
    expect(listed.data.map((e) => e.id)).toContain(created.id);

    const got = json(await rubricon(["evaluations", "get", String(created.id), "--json"]));
    expect(got).toEqual(created);

    const table = await rubricon(["evaluations", "list"]);
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/^ID\s+NAME\s+TYPE\s+STATUS/);
    expect(table.stdout).toContain("Checkout from the CLI");
  });

  it("creates from a YAML file, updates, starts, ends and deletes", async () => {
    const file = join(work, "eval.yaml");
    writeFileSync(
      file,
      "name: From YAML\ntype: SSE\ndesignUrls:\n  - url: https://example.com/a\n  - url: https://example.com/b\n",
    );
    const created = json(await rubricon(["evaluations", "create", "--file", file, "--json"]));
    expect(created).toMatchObject({ name: "From YAML", comparisonCount: 2 });
    const id = String(created.id);

    const updated = json(await rubricon(["evaluations", "update", id, "--set", "name=Renamed", "--json"]));
    expect(updated.name).toBe("Renamed");
    expect(json(await rubricon(["evaluations", "start", id, "--json"])).status).toBe("Running");
    const ended = await rubricon(["evaluations", "end", id]);
    expect(ended).toMatchObject({ code: 0, stdout: `Evaluation ${id} is Ended.\n` });

    const removed = await rubricon(["evaluations", "delete", id]);
    expect(removed.code).toBe(0);
    const gone = await rubricon(["evaluations", "get", id]);
    expect(gone.code).toBe(1);
  });

  it("exports ratings to csv, json and md files", async () => {
    const created = json(
      await rubricon([
        "evaluations",
        "create",
        "--name",
        "Export",
        "--type",
        "SSE",
        "--url",
        "https://example.com",
        "--json",
      ]),
    );
    const id = String(created.id);
    for (const format of ["csv", "json", "md"]) {
      const path = join(work, `export.${format}`);
      const result = await rubricon(["evaluations", "export", id, "--format", format, "--output", path]);
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout).toContain(`Wrote ${path}`);
      const text = readFileSync(path, "utf8");
      if (format === "json")
        expect(JSON.parse(text)).toMatchObject({
          object: "evaluation_export",
          evaluationId: id,
          ratings: [],
        });
      if (format === "md")
        expect(text.split("\n")[0]).toBe(
          "| rating | comparison | rater | scores | justification | created |",
        );
      if (format === "csv") expect(text.length).toBeGreaterThan(0);
    }
  });
});

describe("exit codes", () => {
  it("exits 2 on an unknown flag, a missing or invalid file, and sends nothing", async () => {
    const before = await evaluationCount();
    const unknown = await rubricon(["evaluations", "list", "--frobnicate"]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("unknown option '--frobnicate'");

    const missing = await rubricon(["evaluations", "create", "--file", join(work, "nope.json")]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("Cannot read --file");

    const bad = join(work, "bad.json");
    writeFileSync(bad, '{"name": "half');
    const invalid = await rubricon(["evaluations", "create", "--file", bad]);
    expect(invalid.code).toBe(2);
    expect(invalid.stderr).toContain("is not valid JSON");

    const list = join(work, "list.yaml");
    writeFileSync(list, "- name: a\n- name: b\n");
    const notObject = await rubricon(["evaluations", "create", "--file", list]);
    expect(notObject.code).toBe(2);
    expect(notObject.stderr).toContain("must hold one object");

    const noArg = await rubricon(["evaluations", "get"]);
    expect(noArg.code).toBe(2);
    expect(noArg.stderr).toContain("missing required argument");

    expect(await evaluationCount()).toBe(before);
  });

  it("exits 1 on an API error, printing its code, message and request id", async () => {
    const result = await rubricon(["evaluations", "get", "eval_missing"]);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe("");
    expect(result.stderr).toMatch(/^Error: .+/);
    expect(result.stderr).toContain("Code: evaluation_not_found (HTTP 404)");
    expect(result.stderr).toMatch(/Request id: [0-9a-f-]{36}\n/);

    const asJson = await rubricon(["evaluations", "get", "eval_missing", "--json"]);
    expect(asJson.code).toBe(1);
    const { error } = JSON.parse(asJson.stderr) as { error: Record<string, unknown> };
    expect(error).toMatchObject({ type: "not_found_error", code: "evaluation_not_found", status: 404 });
    expect(error.request_id).toMatch(/^[0-9a-f-]{36}$/);

    const invalid = await rubricon(["evaluations", "create", "--set", "name=No type"]);
    expect(invalid.code).toBe(1);
    expect(invalid.stderr).toContain("Parameter: type");
  });

  it("exits 1 with a bad key and 2 without any credentials", async () => {
    const bad = await rubricon(["whoami"], { env: { RUBRICON_API_KEY: "ak_live_nottherealkey" } });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/Request id: [0-9a-f-]{36}\n/);
    const none = await rubricon(["whoami"], {
      env: { RUBRICON_API_KEY: undefined, RUBRICON_CONFIG_DIR: tempDir("empty") },
    });
    expect(none.code).toBe(2);
    expect(none.stderr).toContain("rubricon login");
  });
});

describe("profiles", () => {
  it("keeps a key in a 0600 config file, uses it, and forgets it at logout", async () => {
    const dir = tempDir("profiles");
    const env = { RUBRICON_API_KEY: undefined, RUBRICON_BASE_URL: undefined, RUBRICON_CONFIG_DIR: dir };
    const saved = await rubricon(
      ["login", "--profile", "staging", "--api-key", account.apiKey, "--base-url", server.url],
      { env },
    );
    expect(saved.code, saved.stderr).toBe(0);
    expect(saved.stdout).toContain("profile staging");
    const file = join(dir, "config.json");
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(file, "utf8")).profiles.staging).toMatchObject({
      baseUrl: server.url,
      apiKey: account.apiKey,
      teamId: account.teamId,
    });

    const me = json(await rubricon(["whoami", "--profile", "staging", "--json"], { env }));
    expect(me).toMatchObject({ principal: "api_key", userId: account.userId, teamId: account.teamId });
    const other = await rubricon(["whoami"], { env });
    expect(other.code).toBe(2);

    const out = await rubricon(["logout", "--profile", "staging"], { env });
    expect(out).toMatchObject({ code: 0, stdout: "Logged out of profile staging.\n" });
    expect(JSON.parse(readFileSync(file, "utf8")).profiles.staging.apiKey).toBeUndefined();
    expect((await rubricon(["whoami", "--profile", "staging"], { env })).code).toBe(2);
  });
});
