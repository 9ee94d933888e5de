// `npm test` / `pnpm test`: the whole suite (unit, API and end-to-end tests), after `pnpm build`; `npm test -- api web`
// runs those packages only. Packages run side by side, the longest first, each line prefixed with its package; the
// time of each part is printed at the end.
// Plain Node, no dependencies, so it runs before anything is installed.
import { spawn, spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { delimiter, dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const PNPM_VERSION = "10.34.9";
const DEFAULT_CHROMIUM = "/usr/bin/chromium";
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const started = Date.now();

function log(message) {
  process.stdout.write(`test: ${message}\n`);
}

function elapsed() {
  return `${Math.round((Date.now() - started) / 1000)}s`;
}

function finish(code, summary) {
  process.stdout.write(`\n${code === 0 ? "PASS" : "FAIL"}: ${summary} (${elapsed()})\n`);
  process.exit(code);
}

/** Runs a command with the terminal attached; answers its exit code (1 when it could not start or was killed). */
function run(command, args, env = process.env) {
  const result = spawnSync(command, args, { cwd: ROOT, stdio: "inherit", env });
  if (result.error) {
    log(`could not run ${command}: ${result.error.message}`);
    return 1;
  }
  if (result.signal) log(`${command} was stopped by ${result.signal}`);
  return result.status ?? 1;
}

function isRoot() {
  return typeof process.getuid === "function" && process.getuid() === 0;
}

/** The Playwright test drives Debian's Chromium (the Playwright-managed browsers are never downloaded). */
function ensureChromium(env) {
  const wanted = env.CHROMIUM_PATH || DEFAULT_CHROMIUM;
  if (existsSync(wanted)) return wanted;
  if (!isRoot()) {
    log(`Chromium not found at ${wanted}; the end-to-end test needs it.`);
    log("Install it (Debian/Ubuntu: sudo apt-get install -y --no-install-recommends chromium),");
    log("or point CHROMIUM_PATH at an installed Chromium or Chrome binary, then run the tests again.");
    finish(1, "Chromium is missing");
  }
  log(`Chromium not found at ${wanted}; installing Debian's chromium with apt-get`);
  const aptEnv = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
  if (run("apt-get", ["update"], aptEnv) !== 0) finish(1, "apt-get update failed");
  if (run("apt-get", ["install", "-y", "--no-install-recommends", "chromium"], aptEnv) !== 0) {
    finish(1, "apt-get install chromium failed");
  }
  if (!existsSync(DEFAULT_CHROMIUM)) finish(1, `chromium installed but ${DEFAULT_CHROMIUM} is missing`);
  return DEFAULT_CHROMIUM;
}

function works(command, args) {
  const result = spawnSync(command, args, { cwd: ROOT, stdio: "ignore" });
  return !result.error && result.status === 0;
}

/** The repository's own pnpm, else one on PATH, else a pinned one through npx. */
function findPnpm() {
  const local = join(ROOT, "node_modules", ".bin", "pnpm");
  if (existsSync(local)) return { command: local, prefix: [] };
  if (works("pnpm", ["--version"])) return { command: "pnpm", prefix: [] };
  return { command: "npx", prefix: ["-y", `pnpm@${PNPM_VERSION}`] };
}

/**
 * Repeats each failed test of this run (from the packages' vitest JSON reports) with the head of its error, so the
 * last lines of a long log name what failed.
 */
function printFailures() {
  const lines = [];
  for (const group of ["packages", "apps", "tooling"]) {
    const base = join(ROOT, group);
    if (!existsSync(base)) continue;
    for (const name of readdirSync(base)) {
      const results = join(base, name, "test-results");
      if (!existsSync(results)) continue;
      // One report per pass: vitest.json, and vitest-<pass>.json for a second pass (the API's on PGlite).
      for (const file of readdirSync(results)) {
        const pass = /^vitest(-[a-z]+)?\.json$/.exec(file);
        if (!pass) continue;
        const report = join(results, file);
        if (statSync(report).mtimeMs < started) continue;
        const where = `${group}/${name}${pass[1] ? ` (${pass[1].slice(1)})` : ""}`;
        lines.push(
          ...failuresOf(report, join(results, `unhandled${pass[1] ?? ""}.json`), where, join(base, name)),
        );
      }
    }
  }
  if (lines.length === 0) return;
  process.stdout.write(`\nFailed tests (${lines.length}):\n`);
  for (const line of lines) process.stdout.write(`  ${line}\n`);
}

function failuresOf(report, unhandled, label, dir) {
  const lines = [];
  let parsed;
  try {
    parsed = JSON.parse(readFileSync(report, "utf8"));
  } catch {
    return [`${label}: unreadable test report`];
  }
  for (const file of parsed.testResults ?? []) {
    const where = `${label}/${relative(dir, file.name ?? "")}`;
    const failed = (file.assertionResults ?? []).filter((t) => t.status === "failed");
    if (file.status === "failed" && failed.length === 0) lines.push(`${where}: ${firstLines(file.message)}`);
    for (const t of failed) lines.push(`${where} > ${t.fullName}: ${firstLines(t.failureMessages?.[0])}`);
  }
  for (const error of readUnhandled(unhandled)) {
    lines.push(`${label}: unhandled ${firstLines(error.stack ?? `${error.name}: ${error.message}`)}`);
  }
  if (parsed.success === false && lines.length === 0) {
    lines.push(`${label}: the run failed with no failed test in its report (see its log above)`);
  }
  return lines;
}

function readUnhandled(path) {
  if (!existsSync(path) || statSync(path).mtimeMs < started) return [];
  try {
    return JSON.parse(readFileSync(path, "utf8"));
  } catch {
    return [];
  }
}

function firstLines(text) {
  return String(text ?? "")
    .split("\n")
    .filter((l) => l.trim())
    .slice(0, 3)
    .join(" | ")
    .slice(0, 600);
}

const env = { ...process.env };
env.CHROMIUM_PATH = ensureChromium(env);

const BIN = join(ROOT, "node_modules", ".bin");
const turbo = join(BIN, "turbo");
if (!existsSync(turbo)) {
  const pnpm = findPnpm();
  log("dependencies are not installed; running pnpm install --frozen-lockfile");
  if (run(pnpm.command, [...pnpm.prefix, "install", "--frozen-lockfile"], env) !== 0) {
    finish(1, "pnpm install failed");
  }
  if (!existsSync(turbo)) finish(1, `turbo not found at ${turbo} after installing`);
}

// The repository's bin folder first on PATH by its absolute path, so each package's script finds the workspace's
// tools from its own folder.
env.PATH = `${BIN}${delimiter}${env.PATH ?? ""}`;

// The API and end-to-end suites run what ships: the deployable folder. `pnpm build` is cached by Turborepo, so
// after an unchanged build it only assembles dist/ again; CI, which has just built, sets TEST_SKIP_BUILD. Every
// package is built by it too, so the parts below run their tests only.
if (!env.TEST_SKIP_BUILD) {
  log("building dist/ (pnpm build) for the suites that run it");
  const pnpm = findPnpm();
  if (run(pnpm.command, [...pnpm.prefix, "run", "build"], env) !== 0) finish(1, "pnpm build failed");
}

/**
 * The parts of the suite, the longest first: a long part started last would end the run alone. The order is that of
 * a CI run on the 2-core machine; a package missing from it runs after these, by name.
 */
const LONGEST_FIRST = [
  "@rubricon/api",
  "@rubricon/web",
  "@rubricon/agents",
  "@rubricon/core",
  "@rubricon/db",
  "@rubricon/deploy",
  "@rubricon/cli",
  "@rubricon/extension",
  "@rubricon/bench",
];

/** Every workspace package with a `test` script. */
function suiteParts() {
  const parts = [];
  for (const group of ["apps", "packages", "tooling"]) {
    const base = join(ROOT, group);
    if (!existsSync(base)) continue;
    for (const folder of readdirSync(base)) {
      const manifest = join(base, folder, "package.json");
      if (!existsSync(manifest)) continue;
      const pkg = JSON.parse(readFileSync(manifest, "utf8"));
      if (!pkg.scripts?.test) continue;
      parts.push({ name: pkg.name, folder, dir: join(base, folder), script: "test" });
    }
  }
  const rank = (p) => {
    const i = LONGEST_FIRST.indexOf(p.name);
    return i === -1 ? LONGEST_FIRST.length : i;
  };
  return parts.sort((a, b) => rank(a) - rank(b) || a.name.localeCompare(b.name));
}

// `npm test -- <package> …` runs those packages' tests only (`api`, `@rubricon/web`, `web`, …).
const only = process.argv.slice(2).filter((a) => !a.startsWith("-"));
const wanted = (part) => {
  const pkg = part.name;
  return only.length === 0 || only.some((n) => n === pkg || n === part.folder || `@rubricon/${n}` === pkg);
};
const parts = suiteParts().filter(wanted);
if (parts.length === 0) finish(1, `no package matches ${only.join(", ")}`);

/**
 * Runs one part with its output prefixed line by line; resolves with its exit code and time. Two parts at once: on
 * two cores more starves the suites that compute in their own process.
 */
function runPart(part, pnpm) {
  const started = Date.now();
  const child = spawn(pnpm.command, [...pnpm.prefix, "run", "--silent", part.script], {
    cwd: part.dir,
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  const prefix = `${part.name.replace("@rubricon/", "")}: `;
  const relay = (stream, out) => {
    let rest = "";
    stream.on("data", (chunk) => {
      const lines = (rest + chunk.toString()).split("\n");
      rest = lines.pop() ?? "";
      for (const line of lines) out.write(`${prefix}${line}\n`);
    });
    stream.on("end", () => rest && out.write(`${prefix}${rest}\n`));
  };
  relay(child.stdout, process.stdout);
  relay(child.stderr, process.stderr);
  return new Promise((done) => {
    child.on("error", (error) => {
      log(`${part.name}: could not start: ${error.message}`);
      done({ part, code: 1, seconds: 0 });
    });
    child.on("close", (code, signal) => {
      if (signal) log(`${part.name} was stopped by ${signal}`);
      done({ part, code: code ?? 1, seconds: Math.round((Date.now() - started) / 1000) });
    });
  });
}

async function runAll() {
  const pnpm = findPnpm();
  const concurrency = Math.max(1, Number(env.TEST_CONCURRENCY) || 2);
  const database = env.DATABASE_URL ? "Postgres from DATABASE_URL" : "embedded PGlite";
  log(`running ${parts.length} parts, ${concurrency} at a time (database: ${database})`);
  const queue = [...parts];
  const results = [];
  const lane = async () => {
    for (let part = queue.shift(); part; part = queue.shift()) {
      log(`${part.name}: started (${elapsed()})`);
      const result = await runPart(part, pnpm);
      log(`${part.name}: ${result.code === 0 ? "passed" : "FAILED"} in ${result.seconds}s (${elapsed()})`);
      results.push(result);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, parts.length) }, lane));
  process.stdout.write("\nPart times:\n");
  for (const r of results.sort((a, b) => b.seconds - a.seconds)) {
    process.stdout.write(
      `  ${String(r.seconds).padStart(5)}s  ${r.code === 0 ? "pass" : "FAIL"}  ${r.part.name}\n`,
    );
  }
  const failed = results.filter((r) => r.code !== 0);
  if (failed.length > 0) printFailures();
  finish(
    failed.length === 0 ? 0 : 1,
    failed.length === 0
      ? `all ${results.length} parts passed`
      : `${failed.map((r) => r.part.name).join(", ")} failed`,
  );
}

await runAll();
