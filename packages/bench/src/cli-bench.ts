/**
 * `pnpm bench cli`: how long `rubricon --version` and `rubricon --help` take from the built, bundled CLI, and
 * `pnpm admin -- help` (pnpm included, as an operator types it) from the production build's admin bundle; wall
 * time from spawn to exit (what a user or a script waits), median of several runs after warm-ups.
 */
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { atMost, type Figure, info } from "./figures";
import { REPO_ROOT } from "./servers";
import { renderTable } from "./table";

const CLI_DIR = join(REPO_ROOT, "packages", "cli");
const BIN = join(CLI_DIR, "dist", "rubricon.js");
const RUNS = Number(process.env.BENCH_CLI_RUNS ?? 15);
const WARMUPS = 2;
export const VERSION_TARGET_MS = 300;
const ADMIN_BUNDLE = join(REPO_ROOT, "dist", "apps", "web", "admin.mjs");
export const ADMIN_HELP_TARGET_MS = 1000;

function timeOnce(args: string[]): number {
  const [command, argv] =
    args[0] === "pnpm"
      ? ["pnpm", args.slice(1)]
      : [process.execPath, args[0] === "-e" || args[0] === ADMIN_BUNDLE ? args : [BIN, ...args]];
  const started = process.hrtime.bigint();
  const result = spawnSync(command, argv, { cwd: REPO_ROOT, stdio: ["ignore", "pipe", "pipe"] });
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  if (result.status !== 0) throw new Error(`${args.join(" ")} exited ${result.status}: ${result.stderr}`);
  return ms;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

export function benchCli(log: (line: string) => void): Figure[] {
  if (!existsSync(BIN)) {
    log("building the CLI");
    const built = spawnSync("pnpm", ["--filter", "@rubricon/cli", "build"], {
      cwd: REPO_ROOT,
      stdio: "inherit",
    });
    if (built.status !== 0) throw new Error("the CLI build failed");
  }
  const measure = (args: string[]) => {
    for (let i = 0; i < WARMUPS; i++) timeOnce(args);
    return median(Array.from({ length: RUNS }, () => timeOnce(args)));
  };
  if (!existsSync(ADMIN_BUNDLE)) {
    log("bundling the admin CLI into the production build");
    const built = spawnSync(process.execPath, ["tooling/scripts/artifact.mjs", "--admin-only"], {
      cwd: REPO_ROOT,
      stdio: "inherit",
    });
    if (built.status !== 0) throw new Error("the admin CLI bundle failed: run `pnpm build` first");
  }
  const version = measure(["--version"]);
  const help = measure(["--help"]);
  const adminHelp = measure(["pnpm", "admin", "--", "help"]);
  const adminBundle = measure([ADMIN_BUNDLE, "help"]);
  // What Node itself costs to start and exit on this machine, for reading the figures above.
  const node = measure(["-e", "0"]);
  const round = (ms: number) => Math.round(ms * 10) / 10;
  return [
    atMost("rubricon --version (median wall time)", round(version), "ms", VERSION_TARGET_MS),
    info("rubricon --help (median wall time)", round(help), "ms"),
    atMost("admin help: pnpm admin -- help (median wall time)", round(adminHelp), "ms", ADMIN_HELP_TARGET_MS),
    info("admin help without pnpm: node dist/apps/web/admin.mjs help", round(adminBundle), "ms"),
    info("node -e 0 (median wall time, for reference)", round(node), "ms"),
  ];
}

export function printCliRows(figures: Figure[]): void {
  console.log(
    renderTable(
      ["figure", "value", "target", "pass"],
      figures.map((f) => [
        f.name,
        `${f.value} ${f.unit}`,
        f.target ?? "-",
        f.pass === null ? "-" : f.pass ? "yes" : "NO",
      ]),
    ),
  );
}
