import { existsSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../../..");
const DOC = join(ROOT, "docs/benchmarks.md");

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
    const links = [...text.matchAll(/\]\(\.\.\/(packages\/bench\/results\/[\w-]+\.json)\)/g)];
    if (links.length > 0) file = links.at(-1)![1]!;
    const row = /^\|\s*`([\w.-]+)`\s*\|\s*(-?[\d.]+)\s*\|/.exec(text);
    if (row && file) quotes.push({ file, name: row[1]!, value: Number(row[2]), line: i + 1 });
  });
  return quotes;
}

describe("docs/benchmarks.md", () => {
  const markdown = readFileSync(DOC, "utf8");

  it("quotes every figure as the results file it links holds it", () => {
    const quotes = quotedFigures(markdown);
    expect(quotes.length).toBeGreaterThan(0);
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

  it("stays under 20 KB, as the judge's decisions do", () => {
    expect(Buffer.byteLength(markdown)).toBeLessThan(20_000);
    expect(Buffer.byteLength(readFileSync(join(ROOT, "docs/decisions/judge.md")))).toBeLessThan(20_000);
  });
});
