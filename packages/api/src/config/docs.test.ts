import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { ERROR_CODES, ERROR_TYPES } from "@rubricon/contracts";
import { describe, expect, it } from "vitest";
import { ERROR_CODE_PAGES, withErrorCodes } from "./error-codes-doc";

const ROOT = resolve(import.meta.dirname, "../../../..");
const read = (path: string) => readFileSync(join(ROOT, path), "utf8");

/** Every Markdown page under docs/, its topic folders (docs/api/, ...) included, as a path from the root. */
function docPages(dir = "docs"): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory()) return docPages(path);
    return entry.name.endsWith(".md") ? [path] : [];
  });
}

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
    const docs = docPages().map(read).join("\n");
    const vars = envVariables();
    expect(vars.length).toBeGreaterThan(30);
    expect(vars.filter((v) => !docs.includes(`\`${v}\``))).toEqual([]);
  });

  it("lists every error code in docs/api/, each on its type's page, generated from the registry", () => {
    expect(ERROR_CODE_PAGES.flatMap((page) => page.types).sort()).toEqual([...ERROR_TYPES].sort());
    const pages = ERROR_CODE_PAGES.map((page) => ({ ...page, doc: read(`docs/${page.path}`) }));
    for (const { path, types, doc } of pages) {
      expect(doc, `${path}: run \`pnpm --filter @rubricon/api docs:errors\``).toBe(
        withErrorCodes(doc, types),
      );
    }
    const listed = pages.flatMap(({ doc }) =>
      [...doc.matchAll(/^\| `([a-z0-9_]+)` +\| `[a-z_]+` +\|/gm)].map((m) => m[1]),
    );
    expect(listed.sort()).toEqual(Object.keys(ERROR_CODES).sort());
    expect(read("docs/api/other-errors.md")).toMatch(
      /\| `evaluation_not_found` +\| `not_found_error` +\| 404 +\|/,
    );
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
    const pages = ["README.md", ...docPages()];
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
