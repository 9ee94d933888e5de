import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../../..");
const DOC = join(ROOT, "docs/benchmarks.md");

/** Every Markdown page under docs/, topic folders included, as a path from the root. */
function docPages(dir = "docs"): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory()) return docPages(path);
    return entry.name.endsWith(".md") ? [path] : [];
  });
}

interface Quote {
  file: string;
  name: string;
  value: number;
  line: number;
}

/**
 * Figures the doc quotes: table rows whose first cell is a figure's name in backticks and whose second is its
 * value, each read from the results file the paragraph before the table links (`../packages/bench/results/*.json`).
 */
function quotedFigures(markdown: string): Quote[] {
  const quotes: Quote[] = [];
  let file: string | null = null;
  markdown.split("\n").forEach((text, i) => {
    const links = [...text.matchAll(/\]\((?:\.\.\/)+(packages\/bench\/results\/[\w-]+\.json)\)/g)];
    if (links.length > 0) file = links.at(-1)![1]!;
    const row = /^\|\s*`([\w.-]+)`\s*\|\s*(-?[\d.]+)\s*\|/.exec(text);
    if (row && file) quotes.push({ file, name: row[1]!, value: Number(row[2]), line: i + 1 });
  });
  return quotes;
}

describe("figures quoted in docs/", () => {
  it("quotes the benchmark figures in docs/benchmarks.md", () => {
    expect(quotedFigures(readFileSync(DOC, "utf8")).length).toBeGreaterThan(0);
  });

  it.each(docPages())("%s quotes every figure as the results file it links holds it", (page) => {
    const quotes = quotedFigures(readFileSync(join(ROOT, page), "utf8"));
    for (const q of quotes) {
      const path = join(ROOT, q.file);
      expect(existsSync(path), `${q.file} (line ${q.line})`).toBe(true);
      const figures = (
        JSON.parse(readFileSync(path, "utf8")) as { figures: { name: string; value: number }[] }
      ).figures;
      const figure = figures.find((f) => f.name === q.name);
      expect(figure, `${q.name} in ${q.file} (line ${q.line})`).toBeDefined();
      expect(q.value, `${q.name} (line ${q.line})`).toBe(figure!.value);
    }
  });

  it("reads a quote against the file linked before it, and catches a figure that disagrees", () => {
    const quotes = quotedFigures(
      "From [people.json](../packages/bench/results/people.json):\n\n| Figure | Value |\n| --- | --- |\n| `people.spearman.power_user` | 0.5 | x |\n",
    );
    expect(quotes).toEqual([
      { file: "packages/bench/results/people.json", name: "people.spearman.power_user", value: 0.5, line: 5 },
    ]);
    const held = (
      JSON.parse(readFileSync(join(ROOT, quotes[0]!.file), "utf8")) as {
        figures: { name: string; value: number }[];
      }
    ).figures.find((f) => f.name === "people.spearman.power_user")!;
    expect(held.value).not.toBe(0.5);
  });
});

describe("pages in docs/", () => {
  // A page past 20 KB stops being read whole; split it by topic or tighten it rather than raise the bound.
  it("keeps every page under 20 KB", () => {
    const pages = docPages();
    expect(pages).toContain("docs/benchmarks.md");
    expect(pages).toContain("docs/decisions/judge.md");
    const oversized = pages
      .map((page) => ({ page, bytes: Buffer.byteLength(readFileSync(join(ROOT, page))) }))
      .filter(({ bytes }) => bytes >= 20_000)
      .map(({ page, bytes }) => `${page}: ${bytes} bytes`);
    expect(oversized).toEqual([]);
  });
});
