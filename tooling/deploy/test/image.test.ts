/**
 * The container image's steps, run here as the Dockerfile runs them (tooling/scripts/image.sh): build the
 * deployable folder into a temporary directory outside the repository, then start the migrations, the web server
 * and the worker from it with plain node, with nothing of the repository's node_modules on the way.
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../../..");
const SCRIPT = join(ROOT, "tooling/scripts/image.sh");

let out: string;
let data: string;
const running: ChildProcess[] = [];

/** The environment a container has: no repository tools on PATH, nothing inherited that points at the repo. */
function containerEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const path = (process.env.PATH ?? "")
    .split(":")
    .filter((p) => !p.includes("node_modules"))
    .join(":");
  return {
    PATH: path,
    HOME: process.env.HOME,
    NODE_ENV: "production",
    DATA_DIR: data,
    ...extra,
  };
}

function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const server = createServer();
    server.once("error", fail);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => done(typeof address === "object" && address ? address.port : 0));
    });
  });
}

interface Started {
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
}

/** The images' HEALTHCHECK command, as the Dockerfile runs it: true when it exits 0. */
function healthCheck(port: number): boolean {
  try {
    execFileSync("sh", [join(out, "image.sh"), "health", String(port)], { stdio: "ignore", timeout: 10_000 });
    return true;
  } catch {
    return false;
  }
}

function start(role: "web" | "worker" | "migrate", env: NodeJS.ProcessEnv): Started {
  const child = spawn("sh", [join(out, "image.sh"), "start", role], {
    cwd: tmpdir(),
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  running.push(child);
  let text = "";
  child.stdout?.on("data", (c: Buffer) => {
    text += c.toString();
  });
  child.stderr?.on("data", (c: Buffer) => {
    text += c.toString();
  });
  const exited = new Promise<number | null>((done) => child.once("exit", (code) => done(code)));
  return { child, output: () => text, exited };
}

async function waitFor(what: string, started: Started, check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (started.child.exitCode !== null) throw new Error(`${what} exited:\n${started.output()}`);
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${what} not ready within 60 s:\n${started.output()}`);
}

beforeAll(() => {
  out = mkdtempSync(join(tmpdir(), "rubricon-image-"));
  data = mkdtempSync(join(tmpdir(), "rubricon-image-data-"));
  execFileSync("sh", [SCRIPT, "build", out], { cwd: ROOT, stdio: "inherit" });
}, 1_800_000);

afterAll(() => {
  for (const child of running) if (child.exitCode === null) child.kill("SIGKILL");
  rmSync(out, { recursive: true, force: true });
  rmSync(data, { recursive: true, force: true });
});

describe("the deployable folder", () => {
  it("holds the three entries, the migrations and no build tools", () => {
    const app = join(out, "apps/web");
    for (const entry of [
      "server.mjs",
      "worker.mjs",
      "migrate.mjs",
      "drizzle/meta/_journal.json",
      "image.sh",
    ]) {
      expect(existsSync(entry === "image.sh" ? join(out, entry) : join(app, entry)), entry).toBe(true);
    }
    const store = existsSync(join(out, "node_modules/.pnpm"))
      ? readdirSync(join(out, "node_modules/.pnpm"))
      : [];
    const packages = [...readdirSync(join(out, "node_modules")), ...store];
    for (const tool of ["tsx", "typescript", "esbuild", "vitest", "turbo", "@biomejs"]) {
      expect(
        packages.filter((p) => p === tool || p.startsWith(`${tool}@`)),
        tool,
      ).toEqual([]);
    }
  });

  it("applies the migrations, serves pages and the API, and runs the worker, with plain node", async () => {
    const migrate = start("migrate", containerEnv({}));
    expect(await migrate.exited, migrate.output()).toBe(0);
    expect(migrate.output()).toContain("migrations applied (pglite)");

    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const web = start("web", containerEnv({ PORT: String(port), BASE_URL: base, EMBEDDED_WORKER: "false" }));
    await waitFor("web server", web, () =>
      fetch(`${base}/api/v1/evaluations`).then(
        () => true,
        () => false,
      ),
    );

    // The API, from the bundled server: the error envelope for a missing key.
    const unauthorized = await fetch(`${base}/api/v1/evaluations`);
    expect(unauthorized.status).toBe(401);
    expect(((await unauthorized.json()) as { error: { type: string } }).error.type).toBe(
      "authentication_error",
    );
    // Pages, from Next's standalone output, with the security headers of next.config.ts and their scripts.
    const page = await fetch(`${base}/sign-in`);
    expect(page.status).toBe(200);
    expect(page.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
    const html = await page.text();
    const script = html.match(/\/_next\/static\/[^"']+\.js/)?.[0];
    expect(script, "a script of the page").toBeDefined();
    expect((await fetch(`${base}${script}`)).status).toBe(200);

    // The liveness check the image's HEALTHCHECK runs.
    expect(healthCheck(port)).toBe(true);

    web.child.kill("SIGTERM");
    expect(await web.exited).toBe(0);

    const healthPort = await freePort();
    const worker = start("worker", containerEnv({ BASE_URL: base, WORKER_HEALTH_PORT: String(healthPort) }));
    // Ready once its health port answers (what the image's HEALTHCHECK asks); it listens for signals by then.
    await waitFor("worker", worker, () =>
      fetch(`http://127.0.0.1:${healthPort}/readyz`).then(
        (r) => r.status === 200,
        () => false,
      ),
    );
    expect(healthCheck(healthPort)).toBe(true);
    worker.child.kill("SIGTERM");
    expect(await worker.exited, worker.output()).toBe(0);
    expect(worker.output()).toMatch(/"name":"worker".*"msg":"stopped"/);
  }, 180_000);
});
