import type {
  AlphaStat,
  Evaluation,
  EvaluationAgreement,
  EvaluationResults,
  Rating,
} from "@rubricon/contracts";
import type { Actor, CoreContext } from "../../kernel";
import { getEvaluation } from "../evaluations/evaluations";
import { exportRatings } from "./export";
import { getAgreement, getResults } from "./service";

/** Comments quoted at each end of the scale. */
const COMMENTS_PER_END = 3;
/** A quoted comment longer than this is cut, so one rater cannot fill the report. */
const COMMENT_CHARS = 400;

/**
 * Raters' and users' words are data, not markup: every character Markdown or HTML would read as syntax is
 * escaped and line breaks fold to spaces, so a comment cannot add a heading, a link, a table cell or a tag.
 */
export function mdText(value: string): string {
  return value
    .replace(/\s+/g, " ")
    .trim()
    .replace(/[\\`*_{}[\]()<>#|~]/g, (c) => `\\${c}`);
}

const num = (value: number | null, digits = 2) => (value === null ? "—" : value.toFixed(digits));
const interval = (ci: { lower: number; upper: number; clipped?: boolean } | null) =>
  ci ? `${num(ci.lower)} to ${num(ci.upper)}${ci.clipped ? " (cut to the scale)" : ""}` : "—";

/** Why alpha has no value, in words a reader of the report understands. */
function whyUndefined(stat: AlphaStat): string {
  return stat.undefinedReason === "no_variation" ? "every value the same" : "too few paired values";
}

function overallAgreement(stat: AlphaStat): string {
  if (stat.alpha !== null) return `alpha ${num(stat.alpha, 3)}`;
  if (stat.units === 0) return "not yet measured (no ratings to compare)";
  return `not measurable (${whyUndefined(stat)})`;
}

function alphaLine(label: string, stat: AlphaStat): string {
  if (stat.alpha === null) {
    return `| ${label} | — | — | ${stat.raters} | ${stat.units} | not measurable: ${whyUndefined(stat)} |`;
  }
  return `| ${label} | ${num(stat.alpha, 3)} | ${interval(stat.ci95)} | ${stat.raters} | ${stat.units} | |`;
}

function resultsSection(results: EvaluationResults): string[] {
  const lines = ["## Results per template", ""];
  if (results.dimensions.length === 0) return [...lines, "No template has been rated yet.", ""];
  const sse = results.dimensions.filter((d) => d.kind === "sse");
  const sxs = results.dimensions.filter((d) => d.kind === "sxs");
  if (sse.length > 0) {
    lines.push(
      "| Template | Scale | Ratings | Mean | Std. dev. | 95% interval |",
      "| --- | --- | --- | --- | --- | --- |",
    );
    for (const d of sse) {
      lines.push(
        `| ${mdText(d.name)} (v${d.version}) | ${d.scaleMin} to ${d.scaleMax} | ${d.n} | ${num(d.mean)} | ${num(d.stdDev)} | ${interval(d.ci95)} |`,
      );
    }
    lines.push("");
  }
  if (sxs.length > 0) {
    lines.push(
      "| Template | Ratings | A wins | B wins | Ties | Mean preference | 95% interval | Winner |",
      "| --- | --- | --- | --- | --- | --- | --- | --- |",
    );
    for (const d of sxs) {
      lines.push(
        `| ${mdText(d.name)} (v${d.version}) | ${d.n} | ${d.sideAWins} | ${d.sideBWins} | ${d.ties} | ${num(d.meanPreference)} | ${interval(d.ci95)} | ${d.winner} |`,
      );
    }
    lines.push("", "A negative preference favours side A, a positive one side B.", "");
  }
  const names = new Map(results.dimensions.map((d) => [d.templateId, d.name]));
  if (results.perComparison.length > 0) {
    const ids = [...names.keys()];
    lines.push(
      "### Per comparison",
      "",
      `| # | Comparison | Ratings | ${ids.map((id) => mdText(names.get(id)!)).join(" | ")} |`,
      `| --- | --- | --- | ${ids.map(() => "---").join(" | ")} |`,
    );
    for (const c of [...results.perComparison].sort((a, b) => a.position - b.position)) {
      const cells = ids.map((id) => {
        const cell = c.dimensions[id];
        return cell ? `${num(cell.mean)} (n=${cell.n})` : "—";
      });
      lines.push(
        `| ${c.position + 1} | ${c.name ? mdText(c.name) : "—"} | ${c.ratingCount} | ${cells.join(" | ")} |`,
      );
    }
    lines.push("");
  }
  return lines;
}

function agreementSection(agreement: EvaluationAgreement): string[] {
  const lines = [
    "## Agreement",
    "",
    `Krippendorff's alpha (${agreement.overall.metric}), with a bootstrap 95% interval of ${agreement.bootstrap.samples} samples.`,
    "",
    "| Raters | Alpha | 95% interval | Raters | Units | Note |",
    "| --- | --- | --- | --- | --- | --- |",
    alphaLine("All raters", agreement.overall),
    alphaLine("Humans", agreement.groups.humans.overall),
    alphaLine("Autousers", agreement.groups.autousers.overall),
    alphaLine("Humans against autousers", agreement.groups.humansVsAutousers.overall),
    "",
  ];
  if (agreement.dimensions.length > 1) {
    lines.push(
      "| Template | Alpha | 95% interval | Raters | Units | Note |",
      "| --- | --- | --- | --- | --- | --- |",
    );
    for (const d of agreement.dimensions) lines.push(alphaLine(mdText(d.name), d));
    lines.push("");
  }
  return lines;
}

const meanOf = (r: Rating) => {
  const values = Object.values(r.dimensionRatings);
  return values.length === 0 ? null : values.reduce((a, b) => a + b, 0) / values.length;
};

function raterLabel(r: Rating): string {
  if (r.raterType === "autouser") return "autouser";
  return r.raterType === "public" ? "share-link rater" : "team member";
}

/** The justifications of the highest and the lowest rated ratings (SxS: most for side B, most for side A). */
function commentsSection(
  type: Evaluation["type"],
  ratings: Rating[],
  comparisonNames: Map<string, string | null>,
): string[] {
  const rated = ratings
    .filter((r) => r.skipReason === null && r.justification && r.justification.trim() !== "")
    .map((r) => ({ r, mean: meanOf(r) }))
    .filter((x): x is { r: Rating; mean: number } => x.mean !== null)
    // Stable and reproducible: by score, then by age and id.
    .sort(
      (a, b) => b.mean - a.mean || a.r.createdAt.localeCompare(b.r.createdAt) || a.r.id.localeCompare(b.r.id),
    );
  const lines = ["## Top comments", ""];
  if (rated.length === 0) return [...lines, "No rater has left a comment yet.", ""];
  // Both ends get as many as the other, so a few comments are not all counted as the highest.
  const high = rated.slice(0, Math.min(COMMENTS_PER_END, Math.ceil(rated.length / 2)));
  const low = rated.slice(Math.max(high.length, rated.length - COMMENTS_PER_END)).reverse();
  const quote = ({ r, mean }: { r: Rating; mean: number }) => {
    const text = r.justification!.trim();
    const cut = text.length > COMMENT_CHARS ? `${text.slice(0, COMMENT_CHARS)}…` : text;
    const where = comparisonNames.get(r.comparisonId);
    return `- “${mdText(cut)}” — ${raterLabel(r)}, ${where ? mdText(where) : "a comparison"}, score ${num(mean)}`;
  };
  lines.push(type === "SxS" ? "### Most for side B" : "### Highest rated", "", ...high.map(quote), "");
  if (low.length > 0)
    lines.push(type === "SxS" ? "### Most for side A" : "### Lowest rated", "", ...low.map(quote), "");
  return lines;
}

/**
 * A readable report of an evaluation in Markdown: what it is, its results per template and comparison, rater
 * agreement, and the raters' own words at both ends of the scale. It is built from the same cached results and
 * agreement the API serves, so the figures are the ones the dashboard shows.
 */
export async function evaluationReportMarkdown(ctx: CoreContext, actor: Actor, id: string): Promise<string> {
  const evaluation = await getEvaluation(ctx, actor, id);
  const [results, agreement, exported] = await Promise.all([
    getResults(ctx, actor, id),
    getAgreement(ctx, actor, id),
    exportRatings(ctx, actor, id),
  ]);
  const lines = [
    `# ${mdText(evaluation.name)}`,
    "",
    ...(evaluation.description ? [mdText(evaluation.description), ""] : []),
    "## Summary",
    "",
    `- Type: ${evaluation.type === "SSE" ? "single design (SSE)" : "side by side (SxS)"}`,
    `- Status: ${evaluation.status}`,
    `- Comparisons: ${evaluation.comparisonCount}`,
    `- Templates: ${evaluation.templates.map((t) => `${mdText(t.name)} (v${t.version})`).join(", ") || "—"}`,
    `- Ratings: ${results.ratingCount} (${results.humanRatingCount} human, ${results.autouserRatingCount} autouser), ${results.excludedCount} skipped`,
    `- Overall agreement: ${overallAgreement(results.agreement)}`,
    `- Created: ${evaluation.createdAt}${evaluation.endedAt ? `; ended ${evaluation.endedAt}` : ""}`,
    `- Computed: ${results.computedAt}`,
    "",
    ...resultsSection(results),
    ...agreementSection(agreement),
    ...commentsSection(evaluation.type, exported.ratings, exported.comparisonNames),
  ];
  return `${lines.join("\n").trimEnd()}\n`;
}
