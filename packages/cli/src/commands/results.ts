import type { Command } from "commander";
import { action, show } from "../command-kit";
import { line, printRecord, printTable, round } from "../output";

type Loose = Record<string, (...args: unknown[]) => Promise<unknown>>;
type Row = Record<string, unknown>;
interface Interval {
  lower: number;
  upper: number;
  clipped?: boolean;
}
interface Alpha {
  alpha: number | null;
  metric: string;
  raters: number;
  units: number;
  values: number;
  ci95: Interval | null;
  undefinedReason: string | null;
  name?: string;
}
interface Cell {
  n: number;
  mean: number | null;
}

function interval(ci: unknown): string {
  const range = ci as Interval | null | undefined;
  if (!range) return "";
  return `${round(range.lower)} to ${round(range.upper)}${range.clipped ? " (cut to scale)" : ""}`;
}

/** Alpha as one phrase: "0.882 (ordinal), 95% CI -0.08 to 0.88, 3 raters", or why it is undefined. */
export function alphaText(stat: Alpha): string {
  if (stat.alpha === null)
    return `undefined (${(stat.undefinedReason ?? "too few values").replace(/_/g, " ")})`;
  const ci = stat.ci95 ? `, 95% CI ${interval(stat.ci95)}` : "";
  return `${round(stat.alpha)} (${stat.metric})${ci}, ${stat.raters} raters`;
}

/** A mean per dimension, one column each, named by the dimensions listed in the results. */
function dimensionColumns(dimensions: Row[]) {
  return dimensions.map((d) => ({
    header: String(d.name),
    value: (row: Row) => {
      const cell = (row.dimensions as Record<string, Cell> | undefined)?.[String(d.templateId)];
      return cell && cell.mean !== null ? `${round(cell.mean)} (n ${cell.n})` : "";
    },
  }));
}

export function printResults(results: Row): void {
  const { dimensions, perComparison, perRater, agreement, ...summary } = results;
  const dims = (dimensions ?? []) as Row[];
  printRecord({ ...summary, agreement: agreement ? alphaText(agreement as Alpha) : "" });
  line();
  line("Dimensions:");
  printTable(dims, [
    { header: "dimension", value: "name" },
    { header: "kind", value: "kind" },
    { header: "n", value: "n" },
    { header: "mean", value: (d) => round((d.kind === "sxs" ? d.meanPreference : d.mean) as number | null) },
    { header: "95% ci", value: (d) => interval(d.ci95) },
    { header: "winner", value: (d) => (d.kind === "sxs" ? d.winner : "") },
  ]);
  line();
  line("Per design:");
  printTable((perComparison ?? []) as Row[], [
    { header: "#", value: "position" },
    { header: "design", value: (c) => c.name ?? c.comparisonId },
    { header: "ratings", value: "ratingCount" },
    ...dimensionColumns(dims),
  ]);
  line();
  line("Per rater:");
  printTable((perRater ?? []) as Row[], [
    { header: "rater", value: (r) => r.raterId ?? "(anonymous)" },
    { header: "type", value: "raterType" },
    { header: "ratings", value: "ratingCount" },
    ...dimensionColumns(dims),
  ]);
}

const GROUPS: [string, string][] = [
  ["humans", "humans"],
  ["autousers", "autousers"],
  ["humansVsAutousers", "humans vs autousers"],
];

export function printAgreement(agreement: Row): void {
  const rows: Row[] = [];
  const add = (group: string, stats: { overall: Alpha; dimensions: Alpha[] }) => {
    rows.push({ group, dimension: "(overall)", ...stats.overall });
    for (const d of stats.dimensions) rows.push({ group, dimension: d.name, ...d });
  };
  add("all raters", agreement as unknown as { overall: Alpha; dimensions: Alpha[] });
  const groups = (agreement.groups ?? {}) as Record<string, { overall: Alpha; dimensions: Alpha[] }>;
  for (const [key, label] of GROUPS) if (groups[key]) add(label, groups[key]);
  const bootstrap = agreement.bootstrap as { samples: number; seed: number } | undefined;
  printRecord({
    evaluationId: agreement.evaluationId,
    computedAt: agreement.computedAt,
    ...(bootstrap ? { bootstrap: `${bootstrap.samples} samples, seed ${bootstrap.seed}` } : {}),
  });
  line();
  printTable(rows, [
    { header: "group", value: "group" },
    { header: "dimension", value: "dimension" },
    { header: "alpha", value: (r) => (r.alpha === null ? "undefined" : round(r.alpha as number)) },
    { header: "95% ci", value: (r) => interval(r.ci95) },
    { header: "metric", value: "metric" },
    { header: "raters", value: "raters" },
    { header: "units", value: "units" },
    { header: "note", value: (r) => String(r.undefinedReason ?? "").replace(/_/g, " ") },
  ]);
}

export function registerResults(program: Command, loose: (resource: unknown) => Loose): void {
  program
    .command("results <evaluation>")
    .description("An evaluation's results: per dimension, per design and per rater")
    .action(
      action(async (inv) => {
        const { client } = await inv.api();
        const results = (await loose(client.evaluations).results!(inv.args[0])) as Row;
        show(results, inv.opts, () => printResults(results));
      }),
    );

  program
    .command("agreement <evaluation>")
    .description("How far raters agree, overall and per dimension, for all raters and each group")
    .action(
      action(async (inv) => {
        const { client } = await inv.api();
        const agreement = (await loose(client.evaluations).agreement!(inv.args[0], {})) as Row;
        show(agreement, inv.opts, () => printAgreement(agreement));
      }),
    );
}
