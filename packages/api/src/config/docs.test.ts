import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { withErrorCodes } from "./error-codes-doc";

const ROOT = resolve(import.meta.dirname, "../../../..");
const read = (path: string) => readFileSync(join(ROOT, path), "utf8");

/** The variables the server validates at start, read from the schema's source so no list is kept twice. */
function envVariables(): string[] {
  const source = read("packages/api/src/config/env.ts");
  const schema = source.slice(
    source.indexOf("const EnvSchema"),
    source.indexOf("});", source.indexOf("const EnvSchema")),
  );
  return [...schema.matchAll(/^\s+([A-Z][A-Z0-9_]+):/gm)].map((m) => m[1]!);
}

describe("documentation", () => {
  it("documents every environment variable the server validates", () => {
    const docs = readdirSync(join(ROOT, "docs"))
      .filter((f) => f.endsWith(".md"))
      .map((f) => read(`docs/${f}`))
      .join("\n");
    const vars = envVariables();
    expect(vars.length).toBeGreaterThan(30);
    expect(vars.filter((v) => !docs.includes(`\`${v}\``))).toEqual([]);
  });

  it("lists every error code in docs/api.md, generated from the registry", () => {
    const doc = read("docs/api.md");
    expect(doc, "run `pnpm --filter @rubricon/api docs:errors`").toBe(withErrorCodes(doc));
    expect(doc).toMatch(/\| `evaluation_not_found` +\| `not_found_error` +\| 404 +\|/);
  });

  it("keeps the README short: what it is, the quick start, links", () => {
    expect(statSync(join(ROOT, "README.md")).size).toBeLessThanOrEqual(12 * 1024);
  });

  it("links every decisions file from the decisions index, and every link resolves", () => {
    const dir = join(ROOT, "docs/decisions");
    const index = read("docs/decisions/README.md");
    const files = readdirSync(dir).filter((f) => f.endsWith(".md") && f !== "README.md");
    expect(files.length).toBeGreaterThan(5);
    expect(files.filter((f) => !index.includes(`](${f})`))).toEqual([]);
  });

  it("lists each decisions file's sections in the index, as its `##` headings name them", () => {
    const index = read("docs/decisions/README.md");
    const entries = [...index.matchAll(/^- \[[^\]]+\]\(([^)]+)\): (.*)$/gm)];
    expect(entries.length).toBeGreaterThan(5);
    for (const [, file, listed] of entries) {
      const headings = [...read(`docs/decisions/${file}`).matchAll(/^## (.+)$/gm)].map((m) => m[1]);
      expect(headings.length, `${file} has no \`##\` sections`).toBeGreaterThan(0);
      expect(listed, `the index entry of ${file}`).toBe(`${headings.join("; ")}.`);
    }
  });

  it("has no relative link in README or docs that points at a missing file", () => {
    const pages = [
      "README.md",
      ...readdirSync(join(ROOT, "docs"))
        .filter((f) => f.endsWith(".md"))
        .map((f) => `docs/${f}`),
    ];
    const broken: string[] = [];
    for (const page of pages) {
      const base = join(ROOT, page, "..");
      for (const [, target] of read(page).matchAll(/\]\(([^)#\s]+)(?:#[^)]*)?\)/g)) {
        if (/^[a-z]+:/.test(target!)) continue;
        try {
          statSync(join(base, target!));
        } catch {
          broken.push(`${page} -> ${target}`);
        }
      }
    }
    expect(broken).toEqual([]);
  });
});
