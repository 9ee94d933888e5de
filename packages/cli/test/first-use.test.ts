import { createServer } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { progressLine, progressWidths, type Run } from "../src/commands/runs";
import {
  createAccount,
  type Installed,
  installPacked,
  type Result,
  type RunOptions,
  runCli,
  startTestServer,
  type TestAccount,
  type TestServer,
  tempDir,
} from "./helpers/cli";

// What a new user meets with the quick start's defaults: webhooks off, no browser on the machine.
let server: TestServer;
let account: TestAccount;
let cli: Installed;
let configDir: string;

beforeAll(async () => {
  [server, cli] = await Promise.all([
    // The quick start's defaults, webhooks off (said outright: the suite's deployment from dist/ has them on).
    startTestServer({ env: { WEBHOOKS_ENABLED: "false", DATA_DIR: tempDir("data") } }),
    installPacked(),
  ]);
  account = await createAccount(server);
  configDir = tempDir("config");
}, 240_000);
afterAll(async () => {
  await server?.close();
});

function rubricon(args: string[], opts: RunOptions = {}): Promise<Result> {
  return runCli(cli.bin, args, {
    cwd: configDir,
    ...opts,
    env: {
      RUBRICON_BASE_URL: server.url,
      RUBRICON_API_KEY: account.apiKey,
      RUBRICON_CONFIG_DIR: configDir,
      ...opts.env,
    },
  });
}

async function api<T>(method: string, path: string, body?: unknown): Promise<T> {
  const res = await fetch(`${server.api}${path}`, {
    method,
    headers: { Authorization: `Bearer ${account.apiKey}`, "Content-Type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  expect(res.status, `${method} ${path}`).toBeLessThan(300);
  return (await res.json()) as T;
}

async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  const { port } = probe.address() as { port: number };
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

describe("login on a machine without a display", () => {
  const headless = { DISPLAY: undefined, WAYLAND_DISPLAY: undefined, RUBRICON_API_KEY: undefined };

  it("opens no browser, says how to sign in from elsewhere, returns on the chosen port, and gives up with a clear message", async () => {
    const port = await freePort();
    const started = Date.now();
    const result = await rubricon(["login", "--port", String(port), "--timeout", "2"], {
      env: { ...headless, RUBRICON_CONFIG_DIR: tempDir("login") },
    });
    expect(Date.now() - started).toBeLessThan(30_000);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("No browser was opened: no display is set");
    expect(result.stderr).toContain(`redirect_uri=http%3A%2F%2F127.0.0.1%3A${port}%2Fcallback`);
    expect(result.stderr).toContain(`ssh -L ${port}:127.0.0.1:${port}`);
    expect(result.stderr).toContain("rubricon login --api-key <key>");
    expect(result.stderr).toContain(`No sign-in arrived at http://127.0.0.1:${port}/callback within 2 s`);
  });

  it("refuses a port in use, and a port that is not one, before anything waits", async () => {
    const busy = createServer();
    await new Promise<void>((resolve) => busy.listen(0, "127.0.0.1", resolve));
    const { port } = busy.address() as { port: number };
    try {
      const inUse = await rubricon(["login", "--no-browser", "--port", String(port), "--timeout", "60"], {
        env: { ...headless, RUBRICON_CONFIG_DIR: tempDir("login") },
      });
      expect(inUse.code).toBe(1);
      expect(inUse.stderr).toContain(`Port ${port} on 127.0.0.1 is in use`);
    } finally {
      busy.close();
    }
    const bad = await rubricon(["login", "--port", "http"], { env: headless });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("--port must be a port number");
  });
});

describe("listen and trigger with the quick start's defaults", () => {
  it("listen names the setting that turns webhooks on", async () => {
    const result = await rubricon(["listen", "--forward-to", "http://127.0.0.1:9/hooks"]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("feature_not_available");
    expect(result.stderr).toContain("WEBHOOKS_ENABLED=true");
  });

  it("trigger leaves nothing in the team's list unless asked to keep it", async () => {
    const listed = async () =>
      (await api<{ data: { id: string }[] }>("GET", "/evaluations?limit=100")).data.map((e) => e.id);
    const before = await listed();
    const out = await rubricon(["trigger", "rating.created", "--json"]);
    expect(out.code, out.stderr).toBe(0);
    const triggered = JSON.parse(out.stdout) as { created: { evaluation: string }; deleted: boolean };
    expect(triggered.deleted).toBe(true);
    expect(await listed()).toEqual(before);

    const kept = await rubricon(["trigger", "evaluation.created", "--keep"]);
    expect(kept.code, kept.stderr).toBe(0);
    expect(kept.stdout).toContain("(kept)");
    expect((await listed()).length).toBe(before.length + 1);
  });
});

describe("results and agreement for people", () => {
  it("rounds numbers and shows per-design and per-rater tables instead of JSON", async () => {
    const evaluation = await api<{ id: string }>("POST", "/evaluations", {
      name: "Three designs",
      type: "SSE",
      status: "Running",
      designUrls: [
        { url: "https://example.com/a", label: "Alpha" },
        { url: "https://example.com/b", label: "Beta" },
        { url: "https://example.com/c", label: "Gamma" },
      ],
    });
    const comparisons = await api<{ data: { id: string }[] }>(
      "GET",
      `/evaluations/${evaluation.id}/comparisons`,
    );
    for (const [i, c] of comparisons.data.entries()) {
      await api("POST", `/evaluations/${evaluation.id}/ratings`, {
        comparisonId: c.id,
        dimensionRatings: { overall: i === 2 ? 5 : 4 },
      });
    }
    const results = await rubricon(["results", evaluation.id]);
    expect(results.code, results.stderr).toBe(0);
    // The overall mean of 4, 4 and 5 is 4.333…: three decimals at most, and no JSON in the table view.
    expect(results.stdout).toMatch(/\b4\.333\b/);
    expect(results.stdout).not.toMatch(/\d\.\d{4,}/);
    expect(results.stdout).not.toMatch(/[[{]"/);
    expect(results.stdout).toContain("Per design:");
    expect(results.stdout).toMatch(/Beta\s+1\s+4 \(n 1\)/);
    expect(results.stdout).toContain("Per rater:");

    const agreement = await rubricon(["agreement", evaluation.id]);
    expect(agreement.code, agreement.stderr).toBe(0);
    expect(agreement.stdout).not.toMatch(/[[{]"/);
    expect(agreement.stdout).toMatch(/humans vs autousers\s+\(overall\)\s+undefined/);
  });

  it("prints a computed alpha with three decimals", async () => {
    const { printAgreement } = await import("../src/commands/results");
    const stat = {
      alpha: 0.8818181818181818,
      metric: "ordinal",
      raters: 3,
      units: 2,
      values: 6,
      ci95: { lower: -0.0812345, upper: 0.8818181818181818 },
      undefinedReason: null,
    };
    const group = { overall: stat, dimensions: [{ ...stat, templateId: "tpl_1", name: "Overall" }] };
    // The shape GET /evaluations/{id}/agreement answers (EvaluationAgreement).
    const agreement = {
      object: "evaluation_agreement",
      evaluationId: "eval_1",
      computedAt: new Date().toISOString(),
      ...group,
      groups: { humans: group, autousers: group, humansVsAutousers: group },
      bootstrap: { samples: 1000, seed: 7 },
    };
    const chunks: string[] = [];
    const write = process.stdout.write.bind(process.stdout);
    process.stdout.write = ((chunk: string) => chunks.push(chunk) > 0) as typeof process.stdout.write;
    try {
      printAgreement(agreement);
    } finally {
      process.stdout.write = write;
    }
    const text = chunks.join("");
    expect(text).toMatch(/all raters\s+\(overall\)\s+0\.882\s+-0\.081 to 0\.882\s+ordinal\s+3\s+2/);
    expect(text).not.toContain("0.8818");
  });
});

describe("the API reference's CLI samples", () => {
  it("are commands the CLI has", { timeout: 600_000 }, async () => {
    const doc = (await (await fetch(`${server.api}/openapi.json`)).json()) as {
      paths: Record<string, Record<string, { "x-codeSamples"?: { label: string; source: string }[] }>>;
    };
    const commands = Object.values(doc.paths)
      .flatMap((item) => Object.values(item))
      .flatMap((op) => op["x-codeSamples"] ?? [])
      .filter((s) => s.label === "CLI")
      .map((s) => s.source.split(" ").slice(1));
    expect(commands.length).toBeGreaterThan(30);
    // The command's words up to its first argument or flag: each is a command `--help` describes.
    const commandName = (words: string[]) => {
      const firstArgument = words.findIndex((w) => /^[{-]/.test(w));
      return (firstArgument === -1 ? words : words.slice(0, firstArgument)).join(" ");
    };
    const names = new Set(commands.map(commandName));
    // A few at a time: each is a new Node process.
    const pending = [...names];
    while (pending.length > 0) {
      const batch = pending.splice(0, 6);
      const helps = await Promise.all(batch.map((name) => rubricon([...name.split(" "), "--help"])));
      helps.forEach((help, i) => {
        expect(help.code, batch[i]).toBe(0);
        expect(help.stdout).toContain(`Usage: rubricon ${batch[i]}`);
      });
    }
  });
});

describe("runs watch", () => {
  it("lines the bars up whatever the length of the autouser ids", () => {
    const run = (autouserId: string, ratingsCreated: number, plannedRatings: number): Run => ({
      id: `run_${autouserId}`,
      autouserId,
      agentIndex: 0,
      status: "running",
      plannedRatings,
      ratingsCreated,
    });
    const runs = [
      run("auto_screen_reader_user_with_a_long_persona_id", 3, 12),
      run("auto_x", 10, 12),
      run("au_1", 0, 2),
    ];
    const widths = progressWidths(runs);
    const lines = runs.map((r) => progressLine(r, widths));
    const columns = lines.map((l) => [l.indexOf("["), l.indexOf("%"), l.indexOf(" running")]);
    for (const c of columns) expect(c).toEqual(columns[0]);
  });
});
