// `npm test` / `pnpm test`: the whole suite (unit, API and end-to-end tests) through Turborepo, after `pnpm build`;
// `npm test -- api web` runs those packages only.
// Plain Node, no dependencies, so it runs before anything is installed.
import { spawnSync } from "node:child_process";
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
      const report = join(base, name, "test-results", "vitest.json");
      if (!existsSync(report) || statSync(report).mtimeMs < started) continue;
      let parsed;
      try {
        parsed = JSON.parse(readFileSync(report, "utf8"));
      } catch {
        lines.push(`${group}/${name}: unreadable test report`);
        continue;
      }
      const before = lines.length;
      for (const file of parsed.testResults ?? []) {
        const where = `${group}/${name}/${relative(join(base, name), file.name ?? "")}`;
        const failed = (file.assertionResults ?? []).filter((t) => t.status === "failed");
        if (file.status === "failed" && failed.length === 0) {
          lines.push(`${where}: ${firstLines(file.message)}`);
        }
        for (const t of failed) lines.push(`${where} > ${t.fullName}: ${firstLines(t.failureMessages?.[0])}`);
      }
      for (const error of readUnhandled(join(base, name, "test-results", "unhandled.json"))) {
        lines.push(
          `${group}/${name}: unhandled ${firstLines(error.stack ?? `${error.name}: ${error.message}`)}`,
        );
      }
      if (parsed.success === false && lines.length === before) {
        lines.push(`${group}/${name}: the run failed with no failed test in its report (see its log above)`);
      }
    }
  }
  if (lines.length === 0) return;
  process.stdout.write(`\nFailed tests (${lines.length}):\n`);
  for (const line of lines) process.stdout.write(`  ${line}\n`);
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

// Turbo is started directly, with the repository's bin folder first on PATH by its absolute path: it then runs
// each package's script with the workspace's pnpm. (`pnpm exec` puts a relative `./node_modules/.bin` first on
// PATH, which turbo resolves from the root but spawns from each package folder, where it does not exist.)
env.PATH = `${BIN}${delimiter}${env.PATH ?? ""}`;

// The API and end-to-end suites run what ships: the deployable folder. `pnpm build` is cached by Turborepo, so
// after an unchanged build it only assembles dist/ again; CI, which has just built, sets TEST_SKIP_BUILD.
if (!env.TEST_SKIP_BUILD) {
  log("building dist/ (pnpm build) for the suites that run it");
  const pnpm = findPnpm();
  if (run(pnpm.command, [...pnpm.prefix, "run", "build"], env) !== 0) finish(1, "pnpm build failed");
}

// `npm test -- <package> …` runs those packages' tests only (`api`, `@rubricon/web`, `web`, …).
const only = process.argv.slice(2).filter((a) => !a.startsWith("-"));
const filters = only.flatMap((name) => ["--filter", name.includes("/") ? name : `*${name}`]);
const database = env.DATABASE_URL ? "Postgres from DATABASE_URL" : "embedded PGlite";
log(`running the test suite (database: ${database}${only.length ? `; ${only.join(", ")}` : ""})`);
// Two packages at a time: each test file makes its databases, ports and Redis key prefixes of its own.
// --continue: every package's tests run even after one fails, so a run reports all its failures at once.
const code = run(turbo, ["run", "test", "--concurrency=2", "--continue", ...filters], env);
if (code !== 0) printFailures();
finish(code, code === 0 ? "all test tasks passed" : `test run failed (turbo exited with code ${code})`);
