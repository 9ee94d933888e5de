import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { type FixtureSite, startFixtureSite } from "@rubricon/agents/testing";
import { autouserRunLoop, startLoops } from "@rubricon/api";
import { autousers, newId } from "@rubricon/db";
import { constructEvent } from "@rubricon/webhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { VERSION } from "../src/version";
import { CLI_SERVER_ENV } from "./global-dist";
import {
  cleanEnv,
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
let site: FixtureSite;

beforeAll(async () => {
  [server, cli, site] = await Promise.all([
    startTestServer({ env: { ...CLI_SERVER_ENV, DATA_DIR: tempDir("data") } }),
    installPacked(),
    startFixtureSite(),
  ]);
  account = await createAccount(server);
  configDir = tempDir("config");
  work = tempDir("work");
}, 240_000);
afterAll(async () => {
  await Promise.all([server?.close(), site?.close()]);
});

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

describe("listen and trigger", () => {
  it("forwards a real event to a local receiver that verifies it with @rubricon/webhooks", async () => {
    let secret = "";
    const received: { type: string; objectId: string }[] = [];
    const receiver: Server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", async () => {
        try {
          const event = await constructEvent(
            Buffer.concat(chunks).toString("utf8"),
            req.headers as Record<string, string>,
            secret,
          );
          received.push({ type: event.type, objectId: String((event.data.object as { id: string }).id) });
          res.writeHead(200).end("ok");
        } catch {
          res.writeHead(400).end("bad signature");
        }
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
    const hooks = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;

    const child = spawn(
      cli.bin,
      ["listen", "--forward-to", hooks, "--events", "evaluation.created", "--json"],
      {
        cwd: work,
        env: {
          ...cleanEnv(),
          RUBRICON_BASE_URL: server.url,
          RUBRICON_API_KEY: account.apiKey,
          RUBRICON_CONFIG_DIR: configDir,
        },
      },
    );
    let stderr = "";
    child.stderr.on("data", (c: Buffer) => {
      stderr += c.toString();
    });
    const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
    const nextLine = async () => JSON.parse(String((await lines.next()).value)) as Record<string, unknown>;
    try {
      const ready = await nextLine();
      expect(ready).toMatchObject({ object: "listen", teamId: account.teamId, forwardTo: hooks });
      secret = String(ready.secret);
      expect(secret).toMatch(/^whsec_[\w-]{43}$/);

      // Its evaluation.created is forwarded; its evaluation.status_changed is filtered out by --events.
      const first = json<{ created: { evaluation: string } }>(
        await rubricon(["trigger", "evaluation.status_changed", "--json"]),
      );
      const second = json<{ created: { evaluation: string } }>(
        await rubricon(["trigger", "evaluation.created", "--json"]),
      );
      expect(await nextLine()).toMatchObject({ type: "evaluation.created", status: 200 });
      expect(await nextLine()).toMatchObject({ type: "evaluation.created", status: 200 });
      expect(received).toEqual([
        { type: "evaluation.created", objectId: first.created.evaluation },
        { type: "evaluation.created", objectId: second.created.evaluation },
      ]);
    } finally {
      child.kill("SIGINT");
      await new Promise((resolve) => child.once("exit", resolve));
      receiver.close();
    }
    expect(stderr).toBe("");
    // The same secret next time, kept in the profile.
    expect(readFileSync(join(configDir, "config.json"), "utf8")).toContain(secret);
  }, 90_000);

  it("given --api-key, writes no secret to the profile", async () => {
    const dir = mkdtempSync(join(tmpdir(), "rubricon-listen-"));
    const child = spawn(
      cli.bin,
      ["listen", "--forward-to", "http://127.0.0.1:9/hooks", "--api-key", account.apiKey, "--json"],
      { cwd: work, env: { ...cleanEnv(), RUBRICON_BASE_URL: server.url, RUBRICON_CONFIG_DIR: dir } },
    );
    const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
    try {
      const ready = JSON.parse(String((await lines.next()).value)) as { object: string; secret: string };
      expect(ready).toMatchObject({ object: "listen", secret: expect.stringMatching(/^whsec_/) });
    } finally {
      child.kill("SIGINT");
      await new Promise((resolve) => child.once("exit", resolve));
    }
    const file = join(dir, "config.json");
    expect(existsSync(file) ? readFileSync(file, "utf8") : "").not.toContain("whsec_");
  }, 60_000);

  it("refuses to trigger what it cannot make, with exit 2", async () => {
    const result = await rubricon(["trigger", "autouser_run.completed"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("rubricon runs start");
  });
});

describe("runs", () => {
  it("starts an autouser run and follows it to the end with a bar per autouser", async () => {
    const autouserId = newId("autouser");
    await server.database.db.insert(autousers).values({
      id: autouserId,
      teamId: account.teamId,
      isSystem: false,
      name: "Dana the shopper",
      role: "Online shopper",
      persona: {
        description: "Shops online most weeks and expects pages to be quick and plain.",
        goals: ["Find the price"],
        traits: ["impatient"],
        expertise: "intermediate",
        accessibilityNeeds: [],
        device: { kind: "desktop", viewport: { width: 1280, height: 800 }, network: "fast" },
      },
      status: "published",
      visibility: "private",
    });
    const evaluation = json(
      await rubricon([
        "evaluations",
        "create",
        "--name",
        "Tea shop",
        "--type",
        "SSE",
        "--url",
        site.urls.clean,
        "--url",
        site.urls.defects,
        "--set",
        "evaluationMethod=ai",
        "--json",
      ]),
    );
    // The deployment from dist/ has a worker of its own; on the sources, the run loop runs in this process.
    const loops =
      server.target === "sources"
        ? startLoops([autouserRunLoop(server.app.services, { heartbeatMs: 250, pollMs: 50 })], () => {})
        : undefined;
    try {
      const result = await rubricon(["runs", "start", String(evaluation.id), "--autouser", autouserId], {
        timeoutMs: 240_000,
      });
      expect(result.code, result.stderr).toBe(0);
      const lines = result.stdout.trim().split("\n");
      expect(lines[0]).toMatch(new RegExp(`^${autouserId}\\s+\\[-{24}\\]\\s+0%\\s+0/2 queued$`));
      expect(lines.at(-1)).toMatch(new RegExp(`^${autouserId}\\s+\\[#{24}\\] 100%\\s+2/2 completed$`));
      expect(result.stderr).toContain("Done: 1 of 1 run(s) completed, 2 rating(s) made.");
    } finally {
      await loops?.stop();
    }
    const results = json(await rubricon(["results", String(evaluation.id), "--json"]));
    expect(results).toMatchObject({ autouserRatingCount: 2 });
    const runs = json<{ data: { status: string }[] }>(
      await rubricon(["runs", "list", String(evaluation.id), "--json"]),
    );
    expect(runs.data.map((r) => r.status)).toEqual(["completed"]);
  }, 300_000);
});

describe("login", () => {
  it("signs in with OAuth and PKCE through the consent page, refreshes, and logs out", async () => {
    const dir = tempDir("login");
    const env: NodeJS.ProcessEnv = { ...cleanEnv(), RUBRICON_BASE_URL: server.url, RUBRICON_CONFIG_DIR: dir };
    delete env.RUBRICON_API_KEY;
    const child = spawn(cli.bin, ["login", "--no-browser", "--scopes", "evaluations:read templates:read"], {
      cwd: work,
      env,
    });
    let stdout = "";
    child.stdout.on("data", (c: Buffer) => {
      stdout += c.toString();
    });
    const exited = new Promise<number>((resolve) => child.once("exit", (code) => resolve(code ?? -1)));
    const lines = createInterface({ input: child.stderr })[Symbol.asyncIterator]();
    let address = "";
    while (!address) {
      const next = String((await lines.next()).value ?? "");
      if (next.startsWith("http")) address = next;
    }
    const authorize = new URL(address);
    expect(authorize.pathname).toBe("/api/oauth/authorize");
    expect(authorize.searchParams.get("code_challenge_method")).toBe("S256");
    expect(authorize.searchParams.get("redirect_uri")).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/);

    // The browser's part: signed in to the dashboard, the user allows the CLI on the consent page.
    const start = await fetch(authorize, { redirect: "manual", headers: { Cookie: account.cookie } });
    expect(start.status).toBe(303);
    const uid = new URL(start.headers.get("location")!, server.url).pathname.split("/").pop()!;
    const session = { Cookie: account.cookie, Origin: server.url, "Content-Type": "application/json" };
    const details = await fetch(`${server.url}/api/oauth/interaction/${uid}`, { headers: session });
    expect(JSON.stringify(await details.json())).toContain("Rubricon CLI");
    const decided = await fetch(`${server.url}/api/oauth/interaction/${uid}`, {
      method: "POST",
      headers: session,
      body: JSON.stringify({ decision: "allow" }),
    });
    const { redirectTo } = (await decided.json()) as { redirectTo: string };
    const interactionCookies = start.headers
      .getSetCookie()
      .map((c) => c.split(";")[0])
      .join("; ");
    const back = await fetch(redirectTo, {
      redirect: "manual",
      headers: { Cookie: `${account.cookie}; ${interactionCookies}` },
    });
    expect(back.status).toBe(303);
    const callback = await fetch(back.headers.get("location")!);
    expect(await callback.text()).toContain("Signed in");

    expect(await exited).toBe(0);
    expect(stdout).toContain(`as user ${account.userId} on team ${account.teamId}`);
    const stored = JSON.parse(readFileSync(join(dir, "config.json"), "utf8")).profiles.default;
    expect(stored.oauth.refreshToken).toEqual(expect.any(String));
    expect(statSync(join(dir, "config.json")).mode & 0o777).toBe(0o600);

    const me = json(
      await rubricon(["whoami", "--json"], {
        env: { RUBRICON_API_KEY: undefined, RUBRICON_CONFIG_DIR: dir },
      }),
    );
    expect(me).toMatchObject({
      principal: "oauth",
      userId: account.userId,
      scopes: ["evaluations:read", "templates:read"],
    });

    // An expired access token is refreshed with the refresh token, which rotates.
    stored.oauth.expiresAt = 0;
    writeFileSync(join(dir, "config.json"), JSON.stringify({ profiles: { default: stored } }));
    const listed = await rubricon(["evaluations", "list", "--json"], {
      env: { RUBRICON_API_KEY: undefined, RUBRICON_CONFIG_DIR: dir },
    });
    expect(listed.code, listed.stderr).toBe(0);
    const refreshed = JSON.parse(readFileSync(join(dir, "config.json"), "utf8")).profiles.default;
    expect(refreshed.oauth.refreshToken).not.toBe(stored.oauth.refreshToken);
    expect(refreshed.oauth.expiresAt).toBeGreaterThan(Date.now());

    const out = await rubricon(["logout", "--json"], {
      env: { RUBRICON_API_KEY: undefined, RUBRICON_CONFIG_DIR: dir },
    });
    expect(JSON.parse(out.stdout)).toMatchObject({ loggedOut: true, revoked: true });
    // The refresh token no longer works at the server.
    const reuse = await fetch(refreshed.oauth.tokenEndpoint, {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        grant_type: "refresh_token",
        refresh_token: refreshed.oauth.refreshToken,
        client_id: refreshed.oauth.clientId,
      }),
    });
    expect(reuse.status).toBe(400);
  }, 120_000);
});
