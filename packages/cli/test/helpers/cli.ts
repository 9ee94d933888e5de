import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { startTestServer, type TestServer } from "@rubricon/api/testing";

export { startTestServer, type TestServer };

export const PACKAGE_DIR = fileURLToPath(new URL("../..", import.meta.url));
export const PACKAGE_JSON = JSON.parse(readFileSync(join(PACKAGE_DIR, "package.json"), "utf8")) as {
  version: string;
  dependencies?: Record<string, string>;
};

/** The environment without the `npm_*` settings that pnpm and turbo pass down, which would steer `npm install`. */
export function cleanEnv(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const key of Object.keys(env)) {
    if (/^npm_/i.test(key) || key === "INIT_CWD" || key.startsWith("RUBRICON_")) delete env[key];
  }
  return env;
}

/** Runs a command without blocking the event loop, which the in-process API server needs to answer. */
export async function sh(command: string, args: string[], cwd: string): Promise<string> {
  try {
    const { stdout } = await promisify(execFile)(command, args, {
      cwd,
      encoding: "utf8",
      env: { ...cleanEnv(), npm_config_update_notifier: "false" },
      timeout: 180_000,
      maxBuffer: 16 * 1024 * 1024,
    });
    return stdout;
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string; message: string };
    throw new Error(
      `${command} ${args.join(" ")} failed in ${cwd}:\n${e.stdout ?? ""}\n${e.stderr ?? e.message}`,
    );
  }
}

export interface Installed {
  /** The folder the tarball was installed into. */
  dir: string;
  /** node_modules/.bin/rubricon there. */
  bin: string;
  tarball: string;
}

/**
 * The package as users get it: built, packed with `pnpm pack`, and installed from the tarball (offline: it has
 * no runtime dependencies) into a folder outside the workspace.
 */
export async function installPacked(): Promise<Installed> {
  const work = mkdtempSync(join(tmpdir(), "rubricon-cli-pack-"));
  await sh(join(PACKAGE_DIR, "node_modules", ".bin", "tsup"), [], PACKAGE_DIR);
  await sh("pnpm", ["pack", "--pack-destination", work], PACKAGE_DIR);
  const tarball = join(work, `rubricon-cli-${PACKAGE_JSON.version}.tgz`);
  const dir = join(work, "app");
  mkdirSync(dir);
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "cli-smoke", private: true }));
  await sh("npm", ["install", "--offline", "--no-audit", "--no-fund", tarball], dir);
  return { dir, bin: join(dir, "node_modules", ".bin", "rubricon"), tarball };
}

export interface Result {
  code: number;
  stdout: string;
  stderr: string;
}

export interface RunOptions {
  env?: Record<string, string | undefined>;
  cwd?: string;
  input?: string;
  timeoutMs?: number;
}

/** One `rubricon` invocation; answers its exit code and output instead of throwing. */
export function runCli(bin: string, args: string[], opts: RunOptions = {}): Promise<Result> {
  return new Promise((resolve) => {
    const env: NodeJS.ProcessEnv = { ...cleanEnv() };
    for (const [k, v] of Object.entries(opts.env ?? {})) {
      if (v === undefined) delete env[k];
      else env[k] = v;
    }
    const child = execFile(
      bin,
      args,
      {
        cwd: opts.cwd,
        env,
        encoding: "utf8",
        timeout: opts.timeoutMs ?? 60_000,
        maxBuffer: 16 * 1024 * 1024,
      },
      (err, stdout, stderr) => {
        const code = err
          ? typeof (err as { code?: unknown }).code === "number"
            ? (err as { code: number }).code
            : 1
          : 0;
        resolve({ code, stdout, stderr });
      },
    );
    if (opts.input !== undefined) child.stdin?.end(opts.input);
    else child.stdin?.end();
  });
}

export interface TestAccount {
  email: string;
  password: string;
  userId: string;
  teamId: string;
  cookie: string;
  apiKey: string;
}

/** A new user on the Pro plan (no monthly evaluation quota to run into) with an API key of every scope. */
export async function createAccount(server: TestServer): Promise<TestAccount> {
  const email = `cli-${randomBytes(5).toString("hex")}@example.com`;
  const password = "correct horse battery";
  const signUp = await fetch(`${server.url}/api/auth/sign-up`, {
    method: "POST",
    headers: { "Content-Type": "application/json", Origin: server.url },
    body: JSON.stringify({ email, password, name: "CLI" }),
  });
  if (signUp.status !== 201) throw new Error(`sign-up failed: ${signUp.status} ${await signUp.text()}`);
  const { user, teamId } = (await signUp.json()) as { user: { id: string }; teamId: string };
  const cookie = signUp.headers.getSetCookie()[0]!.split(";")[0]!;
  await server.setPlan(teamId, "pro");
  const res = await fetch(`${server.api}/api-keys`, {
    method: "POST",
    headers: { Cookie: cookie, Origin: server.url, "Content-Type": "application/json" },
    body: JSON.stringify({ name: "cli test", scopes: ["*"] }),
  });
  if (res.status !== 201) throw new Error(`key mint failed: ${res.status} ${await res.text()}`);
  const apiKey = ((await res.json()) as { key: string }).key;
  return { email, password, userId: user.id, teamId, cookie, apiKey };
}

export function tempDir(label: string): string {
  return mkdtempSync(join(tmpdir(), `rubricon-cli-${label}-`));
}
