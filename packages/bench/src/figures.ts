/**
 * Every section of `pnpm bench` reports its figures as numbers a script can read: `results/<section>.json` holds
 * `{ "figures": [ { "name", "value", "unit", "target", "pass" } ] }` (and whatever detail the section adds), written
 * beside the table the section prints.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { BENCH_DIR } from "./servers";
import { renderTable } from "./table";

export interface Figure {
  name: string;
  value: number;
  unit: string;
  /** What the figure must reach, as `<= 200 ms` or `>= 0.85`; null when the figure is reported for reading only. */
  target: string | null;
  /** null when there is no target. */
  pass: boolean | null;
}

const rounded = (value: number) => (Number.isFinite(value) ? Math.round(value * 1000) / 1000 : value);

/** A figure reported for reading only. */
export function info(name: string, value: number, unit: string): Figure {
  return { name, value: rounded(value), unit, target: null, pass: null };
}

/** A figure that passes at `limit` or below. */
export function atMost(name: string, value: number, unit: string, limit: number): Figure {
  return {
    name,
    value: rounded(value),
    unit,
    target: `<= ${limit}${unit ? ` ${unit}` : ""}`,
    pass: value <= limit,
  };
}

/** A figure that passes below `limit`. */
export function below(name: string, value: number, unit: string, limit: number): Figure {
  return {
    name,
    value: rounded(value),
    unit,
    target: `< ${limit}${unit ? ` ${unit}` : ""}`,
    pass: value < limit,
  };
}

/** A figure that passes at `limit` or above. */
export function atLeast(name: string, value: number, unit: string, limit: number): Figure {
  return {
    name,
    value: rounded(value),
    unit,
    target: `>= ${limit}${unit ? ` ${unit}` : ""}`,
    pass: value >= limit,
  };
}

/** Writes `results/<section>.json`; answers its path. */
export function writeFigures(
  section: string,
  figures: Figure[],
  detail: Record<string, unknown> = {},
  dir = join(BENCH_DIR, "results"),
): string {
  mkdirSync(dir, { recursive: true });
  const path = join(dir, `${section}.json`);
  writeFileSync(
    path,
    `${JSON.stringify({ date: new Date().toISOString(), node: process.version, figures, ...detail }, null, 2)}\n`,
  );
  return path;
}

/** Every figure with a target reached it. */
export function allPass(figures: Figure[]): boolean {
  return figures.every((f) => f.pass !== false);
}

/** The figures as a table under a heading naming the section. */
export function printFigures(section: string, figures: Figure[], note = ""): void {
  const body = figures.map((f) => [
    f.name,
    `${Number.isFinite(f.value) ? f.value : "-"}${f.unit ? ` ${f.unit}` : ""}`,
    f.target ?? "",
    f.pass === null ? "" : f.pass ? "pass" : "FAIL",
  ]);
  process.stdout.write(`\n${renderTable([section, "value", "target", ""], body)}\n${note}`);
}
