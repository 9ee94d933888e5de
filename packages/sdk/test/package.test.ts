import { execFile } from "node:child_process";
import {
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { VERSION } from "../src";
import { createAccount, startTestServer, type TestServer } from "./helpers/api";

/**
 * The package as a user gets it: built with tsup, packed, installed from the tarball into projects outside the
 * workspace, and run against the real API from CommonJS, ESM and TypeScript.
 */

const PACKAGE_DIR = fileURLToPath(new URL("..", import.meta.url));
const BIN = join(PACKAGE_DIR, "node_modules", ".bin");
const pkg = JSON.parse(readFileSync(join(PACKAGE_DIR, "package.json"), "utf8")) as {
  version: string;
  dependencies?: Record<string, string>;
};

let server: TestServer;
let apiKey: string;
let work: string;
/** The package as it is packed: package.json, README.md and a fresh build, away from the workspace's dist/. */
let staged: string;
let tarballFiles: string[];
let tarballName: string;

/**
 * The environment without the `npm_*` settings that `npx`, `pnpm` and turbo pass down: `npm_config_local_prefix`
 * alone would make `npm install` work on this package instead of the smoke project.
 */
function cleanEnv(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const key of Object.keys(env)) if (/^npm_/i.test(key) || key === "INIT_CWD") delete env[key];
  return env;
}

/** Runs a command without blocking the event loop, which the in-process API server needs to answer. */
async function run(
  command: string,
  args: string[],
  cwd: string,
  env: Record<string, string> = {},
): Promise<string> {
  try {
    const { stdout } = await promisify(execFile)(command, args, {
      cwd,
      encoding: "utf8",
      env: { ...cleanEnv(), npm_config_update_notifier: "false", ...env },
      timeout: 120_000,
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

function write(path: string, text: string): void {
  mkdirSync(join(path, ".."), { recursive: true });
  writeFileSync(path, text);
}

beforeAll(async () => {
  server = await startTestServer();
  apiKey = (await createAccount(server)).apiKey;
  work = mkdtempSync(join(tmpdir(), "rubricon-sdk-pack-"));

  staged = join(work, "package");
  mkdirSync(staged);
  for (const file of ["package.json", "README.md"]) copyFileSync(join(PACKAGE_DIR, file), join(staged, file));
  await run(join(BIN, "tsup"), ["--out-dir", join(staged, "dist")], PACKAGE_DIR);
  const packed = JSON.parse(await run("npm", ["pack", "--json", "--pack-destination", work], staged)) as {
    filename: string;
    files: { path: string }[];
  }[];
  tarballFiles = packed[0]!.files.map((f) => f.path).sort();
  tarballName = packed[0]!.filename;

  const app = join(work, "app");
  write(join(app, "package.json"), JSON.stringify({ name: "sdk-smoke", private: true }));
  await run("npm", ["install", "--offline", "--no-audit", "--no-fund", join(work, packed[0]!.filename)], app);
}, 180_000);

afterAll(async () => {
  await server?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

/** What every smoke program does with the SDK; it prints a JSON summary. */
const SCENARIO = `
  const rubricon = new Rubricon({ apiKey: API_KEY, baseUrl: BASE_URL });
  const me = await rubricon.auth.whoami();
  const created = await rubricon.evaluations.create({ name: "From a package", type: "SSE" });
  if (!("id" in created)) throw new Error("expected an evaluation");
  const listed = await rubricon.evaluations.list({ limit: 1 }).toArray({ limit: 5 });
  let notFound = "";
  try {
    await rubricon.evaluations.retrieve("eval_missing");
  } catch (err) {
    if (err instanceof NotFoundError && err instanceof RubriconError) notFound = err.code ?? "";
  }
  console.log(JSON.stringify({ principal: me.principal, name: created.name, listed: listed.length, notFound }));
`;

function expectScenarioOutput(stdout: string) {
  expect(JSON.parse(stdout.trim().split("\n").at(-1)!)).toEqual({
    principal: "api_key",
    name: "From a package",
    listed: expect.any(Number),
    notFound: "evaluation_not_found",
  });
}

describe("the packed package", () => {
  it("is installed as the README says while it is not published: packed from the repository, then the tarball", () => {
    const readme = readFileSync(join(PACKAGE_DIR, "README.md"), "utf8");
    expect(readme).toContain("pnpm --filter @rubricon/sdk build");
    expect(readme).toContain("pnpm --filter @rubricon/sdk pack");
    // The tarball the README names is the one packing makes, and the one the smoke projects install.
    expect(tarballName).toBe(`rubricon-sdk-${pkg.version}.tgz`);
    expect(readme).toContain(`npm install ../${tarballName}`);
    expect(readme).not.toMatch(/^npm install @rubricon\/sdk/m);
  });

  it("holds only the build, the readme and package.json, and has no runtime dependencies", () => {
    expect(tarballFiles).toEqual([
      "README.md",
      "dist/index.cjs",
      "dist/index.cjs.map",
      "dist/index.d.cts",
      "dist/index.d.ts",
      "dist/index.js",
      "dist/index.js.map",
      "package.json",
    ]);
    expect(pkg.dependencies ?? {}).toEqual({});
    expect(VERSION).toBe(pkg.version);
  });

  it("imports nothing, not even Node built-ins, so it runs on Bun, Deno and edge runtimes", () => {
    const esm = readFileSync(join(staged, "dist", "index.js"), "utf8");
    const cjs = readFileSync(join(staged, "dist", "index.cjs"), "utf8");
    expect(esm).not.toMatch(/^\s*import\s/m);
    expect(esm).not.toMatch(/\bimport\(/);
    expect(cjs).not.toMatch(/\brequire\(/);
    const sources = readdirSync(join(PACKAGE_DIR, "src"), { recursive: true, encoding: "utf8" }).filter((f) =>
      f.endsWith(".ts"),
    );
    for (const file of sources) {
      const text = readFileSync(join(PACKAGE_DIR, "src", file), "utf8");
      expect(text, file).not.toMatch(/from "node:|require\(|\bBuffer\b/);
    }
  });

  it("works from CommonJS with require()", async () => {
    const file = join(work, "app", "cjs", "main.cjs");
    write(
      file,
      `const { Rubricon, NotFoundError, RubriconError } = require("@rubricon/sdk");
const { API_KEY, BASE_URL } = process.env;
(async () => {${SCENARIO}})().catch((err) => { console.error(err); process.exit(1); });
`,
    );
    expectScenarioOutput(
      await run("node", [file], join(work, "app"), { API_KEY: apiKey, BASE_URL: server.api }),
    );
  });

  it("works from ESM with import", async () => {
    const file = join(work, "app", "esm", "main.mjs");
    write(
      file,
      `import { Rubricon, NotFoundError, RubriconError } from "@rubricon/sdk";
const { API_KEY, BASE_URL } = process.env;
${SCENARIO}`,
    );
    expectScenarioOutput(
      await run("node", [file], join(work, "app"), { API_KEY: apiKey, BASE_URL: server.api }),
    );
  });

  const tsProgram = (importLine: string) => `${importLine}
import type { Evaluation, EvaluationsCreateParams, Template } from "@rubricon/sdk";

declare const process: { env: Record<string, string> };
const { API_KEY, BASE_URL } = process.env as { API_KEY: string; BASE_URL: string };

async function main(): Promise<void> {${SCENARIO}
  const params: EvaluationsCreateParams = { name: "Typed", type: "SxS" };
  const evaluation: Evaluation | undefined = undefined;
  const template: Template | undefined = undefined;
  // @ts-expect-error the status must be one of the evaluation states
  const wrong: EvaluationsCreateParams = { name: "x", type: "SSE", status: "Paused" };
  void [params, evaluation, template, wrong];
}
void main();
`;

  const TSC = join(BIN, "tsc");
  const tsconfig = (options: Record<string, unknown>) =>
    JSON.stringify({
      compilerOptions: {
        strict: true,
        noUncheckedIndexedAccess: true,
        target: "ES2022",
        lib: ["ES2022", "DOM"],
        skipLibCheck: false,
        types: [],
        ...options,
      },
    });

  it("type-checks and runs from TypeScript with moduleResolution node16, as ESM and as CommonJS", async () => {
    const dir = join(work, "app", "ts-node16");
    write(join(dir, "package.json"), JSON.stringify({ type: "module" }));
    write(
      join(dir, "tsconfig.json"),
      tsconfig({ module: "node16", moduleResolution: "node16", outDir: "out" }),
    );
    write(
      join(dir, "esm.mts"),
      tsProgram('import { NotFoundError, Rubricon, RubriconError } from "@rubricon/sdk";'),
    );
    write(
      join(dir, "cjs.cts"),
      tsProgram(
        'import sdk = require("@rubricon/sdk");\nconst { NotFoundError, Rubricon, RubriconError } = sdk;',
      ),
    );
    await run(TSC, ["-p", dir], dir);
    const env = { API_KEY: apiKey, BASE_URL: server.api };
    expectScenarioOutput(await run("node", [join(dir, "out", "esm.mjs")], dir, env));
    expectScenarioOutput(await run("node", [join(dir, "out", "cjs.cjs")], dir, env));
  });

  it("type-checks with moduleResolution bundler", async () => {
    const dir = join(work, "app", "ts-bundler");
    write(
      join(dir, "tsconfig.json"),
      tsconfig({ module: "ESNext", moduleResolution: "bundler", noEmit: true }),
    );
    write(
      join(dir, "main.ts"),
      tsProgram('import { NotFoundError, Rubricon, RubriconError } from "@rubricon/sdk";'),
    );
    await run(TSC, ["-p", dir], dir);
  });
});
