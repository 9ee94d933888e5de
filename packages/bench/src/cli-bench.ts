/**
 * `pnpm bench cli`: how long `rubricon --version` and `rubricon --help` take from the built, bundled CLI, wall
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

function timeOnce(args: string[]): number {
  const started = process.hrtime.bigint();
  const result = spawnSync(process.execPath, args[0] === "-e" ? args : [BIN, ...args], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  if (result.status !== 0)
    throw new Error(`rubricon ${args.join(" ")} exited ${result.status}: ${result.stderr}`);
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
  const version = measure(["--version"]);
  const help = measure(["--help"]);
  // What Node itself costs to start and exit on this machine, for reading the figures above.
  const node = measure(["-e", "0"]);
  const round = (ms: number) => Math.round(ms * 10) / 10;
  return [
    atMost("rubricon --version (median wall time)", round(version), "ms", VERSION_TARGET_MS),
    info("rubricon --help (median wall time)", round(help), "ms"),
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
