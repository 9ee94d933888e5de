/**
 * compose.yaml, as Docker Compose reads it (Debian's docker-compose package; .ci/run installs it): valid, the
 * services a deployment needs, migrations once before the web and the worker start, and no start without the
 * secrets every replica must share. The Dockerfile's stages call the script image.test.ts runs.
 */
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../../..");
const SECRETS = {
  OAUTH_JWT_SECRET: "o".repeat(32),
  PLUGIN_JWT_SECRET: "p".repeat(32),
  ENCRYPTION_KEY: "ab".repeat(32),
};

function compose(args: string[], env: Record<string, string> = SECRETS) {
  // Only what compose needs: a secret inherited from the shell must not make the missing-secret case pass.
  const result = spawnSync("docker-compose", ["-f", "compose.yaml", ...args], {
    cwd: ROOT,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
    encoding: "utf8",
  });
  if (result.error) {
    throw new Error(
      `docker-compose could not run (${result.error.message}); install it: apt-get install -y docker-compose`,
    );
  }
  return result;
}

/** The resolved configuration, one service block per name (docker-compose prints it as YAML). */
function services(): Map<string, string> {
  const result = compose(["config"]);
  expect(result.status, result.stderr).toBe(0);
  const text = result.stdout.slice(result.stdout.indexOf("\nservices:\n") + 1);
  const blocks = new Map<string, string>();
  let name: string | undefined;
  for (const line of text.split("\n").slice(1)) {
    if (/^\S/.test(line)) break;
    const header = line.match(/^ {2}([\w-]+):$/);
    if (header) {
      name = header[1]!;
      blocks.set(name, "");
    } else if (name) blocks.set(name, `${blocks.get(name)}${line}\n`);
  }
  return blocks;
}

describe("compose.yaml", () => {
  it("is valid for docker-compose", () => {
    const result = compose(["config", "-q"]);
    expect(result.status, result.stderr).toBe(0);
  });

  it("runs Postgres 15, Redis 7, MinIO with its bucket, a browser server, two web replicas behind a proxy and a worker", () => {
    const all = services();
    expect([...all.keys()].sort()).toEqual(
      [
        "browser",
        "bucket",
        "migrate",
        "minio",
        "postgres",
        "proxy",
        "redis",
        "web-1",
        "web-2",
        "worker",
      ].sort(),
    );
    expect(all.get("postgres")).toMatch(/image: postgres:15\.\d+-bookworm\n/);
    expect(all.get("redis")).toMatch(/image: redis:7\.\d+\.\d+-bookworm\n/);
    expect(all.get("bucket")).toContain("mc mb --ignore-existing store/rubricon");
    // The browser server is built once (the Dockerfile's `browser` target): a start downloads nothing.
    expect(all.get("browser")).toMatch(/target: browser/);
    expect(all.get("browser")).not.toContain("npx");
    // Its Playwright matches the worker's playwright-core (the protocol must match).
    const agents = JSON.parse(readFileSync(join(ROOT, "packages/agents/package.json"), "utf8"));
    const version = agents.dependencies["playwright-core"];
    const dockerfile = readFileSync(join(ROOT, "Dockerfile"), "utf8");
    expect(dockerfile).toContain(`FROM mcr.microsoft.com/playwright:v${version}-noble AS browser`);
    expect(dockerfile).toContain(`npm install --no-audit --no-fund playwright-core@${version}`);
    expect(all.get("worker")).toContain("BROWSER_WS_ENDPOINT: ws://browser:3000/");
    expect(all.get("proxy")).toMatch(/published: "?8080"?|8080:8080/);
    const nginx = readFileSync(join(ROOT, "deploy/nginx.conf"), "utf8");
    expect(nginx).toContain("server web-1:3000");
    expect(nginx).toContain("server web-2:3000");
  });

  it("migrates once, before the web replicas and the worker start", () => {
    const all = services();
    expect(all.get("migrate")).toMatch(/command:\n\s+- migrate\n/);
    for (const name of ["web-1", "web-2", "worker"]) {
      const block = all.get(name)!;
      expect(block, name).toMatch(/migrate:\n\s+condition: service_completed_successfully/);
      expect(block, name).toContain("DATABASE_URL: postgres://rubricon:rubricon@postgres:5432/rubricon");
      expect(block, name).toContain(`ENCRYPTION_KEY: ${SECRETS.ENCRYPTION_KEY}`);
    }
    expect(all.get("web-1")).toMatch(/EMBEDDED_WORKER: ["']false["']/);
    expect(all.get("migrate")).toMatch(/postgres:\n\s+condition: service_healthy/);
  });

  it("pins every image to a release, none to a floating tag", () => {
    for (const [name, block] of services()) {
      const image = block.match(/^ {4}image: (\S+)$/m)?.[1];
      if (!image || image.endsWith(":local")) continue;
      expect(image, name).toMatch(/:(?:\d+\.\d+[\w.-]*|RELEASE\.[\w-]+)$/);
    }
  });

  it("gives the web replicas and the worker a stop grace period longer than their drain", () => {
    const all = services();
    const drainMs = 25_000; // SHUTDOWN_TIMEOUT_MS's default (docs/configuration.md)
    for (const name of ["web-1", "web-2", "worker"]) {
      const grace = all.get(name)!.match(/stop_grace_period: (\d+)s/)?.[1];
      expect(Number(grace) * 1000, name).toBeGreaterThan(drainMs + 5_000);
    }
  });

  it("starts from the documented env example once its secrets are filled in", () => {
    const example = readFileSync(join(ROOT, "deploy/compose.env.example"), "utf8");
    const dir = mkdtempSync(join(tmpdir(), "rubricon-compose-env-"));
    const filled = Object.entries(SECRETS).reduce(
      (text, [key, value]) => text.replace(new RegExp(`^${key}=$`, "m"), `${key}=${value}`),
      example,
    );
    writeFileSync(join(dir, "filled.env"), filled);
    writeFileSync(join(dir, "as-shipped.env"), example);
    const ok = compose(["--env-file", join(dir, "filled.env"), "config", "-q"], {});
    expect(ok.status, ok.stderr).toBe(0);
    // Copied as it ships, it names the secret still to fill in.
    const empty = compose(["--env-file", join(dir, "as-shipped.env"), "config", "-q"], {});
    expect(empty.status).not.toBe(0);
    expect(empty.stderr).toMatch(/OAUTH_JWT_SECRET|PLUGIN_JWT_SECRET|ENCRYPTION_KEY/);
  });

  it("refuses to start without the shared secrets, naming the missing one", () => {
    const { ENCRYPTION_KEY: _missing, ...rest } = SECRETS;
    const result = compose(["config", "-q"], rest);
    expect(result.status).not.toBe(0);
    expect(result.stderr).toContain("ENCRYPTION_KEY");
  });
});

describe("Dockerfile", () => {
  const dockerfile = readFileSync(join(ROOT, "Dockerfile"), "utf8");

  it("builds and starts through the script the image test runs, as a non-root user with a health check", () => {
    expect(dockerfile).toMatch(/^ARG NODE_IMAGE=node:26-trixie-slim$/m);
    expect(dockerfile).toContain("RUN sh tooling/scripts/image.sh build /out");
    expect(dockerfile).toContain('ENTRYPOINT ["/app/image.sh", "start"]');
    expect(dockerfile).toMatch(/^USER node$/m);
    expect(dockerfile.match(/^HEALTHCHECK .* CMD \/app\/image.sh health /gm)).toHaveLength(2);
    expect(dockerfile).toMatch(/^FROM web AS worker$/m);
    expect(dockerfile).toContain("apt-get install -y --no-install-recommends chromium");
  });

  it("leaves build output and local data out of the build context", () => {
    const ignored = readFileSync(join(ROOT, ".dockerignore"), "utf8").split("\n");
    for (const entry of ["**/node_modules", "**/.next", "**/.data", ".env"]) expect(ignored).toContain(entry);
  });

  it("has a health check that passes on 200 from /healthz and fails otherwise", async () => {
    let status = 200;
    const server = createServer((req, res) => {
      res.writeHead(req.url === "/healthz" ? status : 404).end();
    });
    await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
    const port = String((server.address() as AddressInfo).port);
    const check = () =>
      new Promise<number | null>((done) =>
        spawn("sh", [join(ROOT, "tooling/scripts/image.sh"), "health", port]).once("exit", done),
      );
    try {
      expect(await check()).toBe(0);
      status = 503;
      expect(await check()).toBe(1);
    } finally {
      server.close();
    }
    expect(await check()).toBe(1);
  });
});
