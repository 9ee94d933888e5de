import { describe, expect, it } from "vitest";
import { extractiveInsights } from "./extractive";

describe("the extractive summarizer", () => {
  const sources = [
    {
      ratingId: "rat_1",
      comparisonId: "cmp_a",
      justification: "The total price is clear. Checkout felt fast.",
      score: 1,
    },
    {
      ratingId: "rat_2",
      comparisonId: "cmp_a",
      justification: "Hidden shipping price at the end, annoying.",
      score: 0,
    },
    {
      ratingId: "rat_3",
      comparisonId: "cmp_a",
      justification: "Price shown early; the button label is clear.",
      score: 0.83,
    },
    {
      ratingId: "rat_4",
      comparisonId: "cmp_b",
      justification: "Too many form fields and a confusing price.",
      score: 0.17,
    },
    { ratingId: "rat_5", comparisonId: "cmp_b", justification: "", score: 0.5 },
  ];
  const result = extractiveInsights({
    type: "SSE",
    comparisons: [
      { id: "cmp_a", name: "Current" },
      { id: "cmp_b", name: "Proposal" },
    ],
    sources,
  });

  it("finds the terms most justifications share, each quote naming its rating", () => {
    expect(result.themes[0]).toMatchObject({ label: "price", mentions: 4 });
    expect(result.themes[0]!.quotes.map((q) => q.ratingId)).toEqual(["rat_1", "rat_2", "rat_3"]);
    expect(result.themes[0]!.quotes[0]!.text).toBe("The total price is clear.");
    expect(result.themes.map((t) => t.label)).toContain("clear");
  });

  it("quotes the highest ratings as strengths and the lowest as problems, per comparison", () => {
    const [a, b] = result.comparisons;
    expect(a!.strengths.map((p) => p.quotes[0]!.ratingId)).toEqual(["rat_1", "rat_3"]);
    expect(a!.problems.map((p) => p.quotes[0]!.ratingId)).toEqual(["rat_2"]);
    expect(b).toMatchObject({ comparisonId: "cmp_b", ratingCount: 2, strengths: [] });
    expect(b!.problems[0]!.text).toBe("Too many form fields and a confusing price.");
    expect(result.summary).toContain("no AI model is configured");
  });

  it("says so when there is nothing to summarise", () => {
    const empty = extractiveInsights({ type: "SxS", comparisons: [], sources: [] });
    expect(empty).toEqual({
      summary: expect.stringContaining("nothing to summarise"),
      themes: [],
      comparisons: [],
    });
  });

  it("leaves an autouser's measurement words and evidence out of the themes", () => {
    const note =
      "Heuristic measurement, not a model: fixed formulas (heuristic-v13) over what the browser measured. Weighted for: screen reader.";
    const autouser = (ratingId: string, view: string) => ({
      ratingId,
      comparisonId: "cmp_a",
      justification: `${note} ${view} Evidence: 4 images without alt text; author styling 0.9 (120 CSS rules); text in the browser's default serif.`,
      score: 0.5,
    });
    const summary = extractiveInsights({
      type: "SSE",
      comparisons: [{ id: "cmp_a", name: "Current" }],
      sources: [
        autouser("rat_1", "Headings are missing, so navigation is slow."),
        autouser("rat_2", "Navigation by headings fails: none are marked up."),
        autouser("rat_3", "Contrast is weak and headings are absent."),
        autouser("rat_4", "The navigation landmarks are missing."),
      ],
    });
    const labels = summary.themes.map((t) => t.label);
    expect(labels.slice(0, 2)).toEqual(["headings", "navigation"]);
    for (const word of ["images", "author", "browser", "styling", "heuristic", "evidence", "measured"])
      expect(labels).not.toContain(word);
  });
});
