import type {
  ComparisonInsight,
  InsightPoint,
  InsightQuote,
  InsightsSummary,
  InsightTheme,
} from "@rubricon/contracts";

/** One justification with what its rating said, normalised to 0 (worst, or side A) .. 1 (best, or side B). */
export interface InsightSource {
  ratingId: string;
  comparisonId: string;
  justification: string;
  score: number | null;
}

export interface InsightInput {
  type: "SSE" | "SxS";
  comparisons: { id: string; name: string | null }[];
  sources: InsightSource[];
}

const STOPWORDS = new Set(
  (
    "a about above after again against all also am an and any are as at be because been before being below between " +
    "both but by can could did do does doing down during each few for from further had has have having he her here " +
    "hers him his how i if in into is it its itself just me more most my no nor not now of off on once only or other " +
    "our out over own same she should so some such than that the their them then there these they this those " +
    "through to too under until up very was we were what when where which while who whom why will with would you " +
    "your one two it's i'm don't didn't doesn't isn't can't much many really quite bit lot still even get got make " +
    "made feel felt seems seemed think thought like page design version side option"
  ).split(" "),
);

/**
 * What autousers measure rather than what they think: the heuristic judge's justifications name the browser, the
 * author's styles and the images in every rating, so counted as themes these words top every summary.
 */
const MEASUREMENT_WORDS = new Set(
  (
    "author authored browser browser's images image measured measure measures measurement heuristic formula " +
    "formulas evidence weighted styling styles stylesheet css rules share pixels score scored rated rating"
  ).split(" "),
);

/**
 * The part of a justification that is the rater's view: an autouser's boilerplate (how it rated) and its
 * "Evidence:" list of measurements are left out.
 */
function opinionOf(text: string): string {
  return text
    .replace(/\bEvidence:[\s\S]*$/, "")
    .split(/(?<=[.!?])\s+/)
    .filter((s) => !/^(Heuristic measurement|Weighted for:)/.test(s.trim()))
    .join(" ");
}
const QUOTE_CHARS = 280;
const MAX_THEMES = 6;
const QUOTES_PER_POINT = 3;
const POINTS_PER_SIDE = 3;

function words(text: string): string[] {
  return (
    opinionOf(text)
      .toLowerCase()
      .match(/[a-z][a-z'-]{2,}/g) ?? []
  ).filter((w) => !STOPWORDS.has(w) && !MEASUREMENT_WORDS.has(w));
}

/** The sentence of `text` that holds `term`, else its opening, cut to a quotable length. */
function quoteOf(text: string, term?: string): string {
  const sentences = text.split(/(?<=[.!?])\s+/);
  const found = term ? sentences.find((s) => s.toLowerCase().includes(term)) : undefined;
  const quote = (found ?? sentences[0] ?? text).trim();
  return quote.length > QUOTE_CHARS ? `${quote.slice(0, QUOTE_CHARS - 1).trimEnd()}…` : quote;
}

/** Terms raters use most, each counted once per justification, with a quote from each of the first few. */
function themesOf(sources: InsightSource[]): InsightTheme[] {
  const df = new Map<string, Set<number>>();
  sources.forEach((s, i) => {
    for (const w of new Set(words(s.justification))) {
      if (!df.has(w)) df.set(w, new Set());
      df.get(w)!.add(i);
    }
  });
  const minMentions = sources.length >= 4 ? 2 : 1;
  return [...df.entries()]
    .filter(([, docs]) => docs.size >= minMentions)
    .sort((a, b) => b[1].size - a[1].size || (a[0] < b[0] ? -1 : 1))
    .slice(0, MAX_THEMES)
    .map(([term, docs]) => ({
      label: term,
      mentions: docs.size,
      quotes: [...docs].slice(0, QUOTES_PER_POINT).map((i) => ({
        ratingId: sources[i]!.ratingId,
        text: quoteOf(sources[i]!.justification, term),
      })),
    }));
}

function point(s: InsightSource): InsightPoint {
  const quote: InsightQuote = { ratingId: s.ratingId, text: quoteOf(s.justification) };
  return { text: quote.text, quotes: [quote] };
}

/**
 * The summary written without a model: the raters' own words. Themes are the terms most justifications share;
 * a comparison's strengths are the justifications of its highest ratings and its problems those of its lowest
 * (side by side: what favoured B, and what favoured A).
 */
export function extractiveInsights(input: InsightInput): InsightsSummary {
  const withText = input.sources.filter((s) => s.justification.trim().length > 0);
  const comparisons: ComparisonInsight[] = input.comparisons.map((c) => {
    const own = withText.filter((s) => s.comparisonId === c.id && s.score !== null);
    const sorted = [...own].sort((a, b) => b.score! - a.score! || (a.ratingId < b.ratingId ? -1 : 1));
    const high = sorted.filter((s) => s.score! > 0.5).slice(0, POINTS_PER_SIDE);
    const low = sorted
      .filter((s) => s.score! < 0.5)
      .reverse()
      .slice(0, POINTS_PER_SIDE);
    return {
      comparisonId: c.id,
      name: c.name,
      ratingCount: input.sources.filter((s) => s.comparisonId === c.id).length,
      strengths: high.map(point),
      problems: low.map(point),
    };
  });
  const themes = themesOf(withText);
  const summary =
    withText.length === 0
      ? "No rater has written a justification yet, so there is nothing to summarise."
      : `Summarised from ${withText.length} justification${withText.length === 1 ? "" : "s"} by picking raters' own words ` +
        `(no AI model is configured): ${themes.length > 0 ? `the most mentioned terms are ${themes.map((t) => `"${t.label}"`).join(", ")}; ` : ""}` +
        (input.type === "SxS"
          ? "for each pair, strengths quote the ratings that favoured side B and problems those that favoured side A."
          : "for each design, strengths quote its highest ratings and problems its lowest.");
  return { summary, themes, comparisons };
}
