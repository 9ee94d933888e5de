import { readFileSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { ERROR_CODES, ERROR_TYPES, type ErrorCode, type ErrorType } from "@rubricon/contracts";

/** The section of each error-codes page between these markers is generated from the registry of error codes. */
export const ERROR_CODES_START =
  "<!-- error-codes:start (generated: pnpm --filter @rubricon/api docs:errors) -->";
export const ERROR_CODES_END = "<!-- error-codes:end -->";

const DOCS = resolve(import.meta.dirname, "../../../../docs");

/**
 * The error-codes reference in docs/api/, one page per group of types: the whole table does not fit a page under
 * 20 KB, and a reader looks a code up by the type they branch on.
 */
export const ERROR_CODE_PAGES: readonly { path: string; types: readonly ErrorType[] }[] = [
  { path: "api/request-errors.md", types: ["invalid_request_error"] },
  {
    path: "api/other-errors.md",
    types: [
      "authentication_error",
      "authorization_error",
      "not_found_error",
      "rate_limit_error",
      "api_error",
    ],
  },
];

/**
 * The error-codes table of the given types as Markdown, in the order the dashboard's `/docs/errors` shows it, with
 * its columns padded the way the repository's formatter lays tables out, so formatting leaves it unchanged.
 */
export function errorCodesMarkdown(types: readonly ErrorType[] = ERROR_TYPES): string {
  const rows = (Object.entries(ERROR_CODES) as [ErrorCode, (typeof ERROR_CODES)[ErrorCode]][])
    .filter(([, e]) => types.includes(e.type))
    .sort(([a, x], [b, y]) => x.status - y.status || a.localeCompare(b))
    .map(([code, e]) => [`\`${code}\``, `\`${e.type}\``, String(e.status), e.summary.replaceAll("|", "\\|")]);
  const table = [["Code", "Type", "HTTP", "Meaning"], ...rows];
  const widths = table[0]!.map((_, i) => Math.max(...table.map((row) => row[i]!.length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i]!)).join(" | ")} |`;
  return [line(table[0]!), line(widths.map((w) => "-".repeat(w))), ...rows.map(line)].join("\n");
}

/** A page's Markdown with its generated section replaced by the current table of its types. */
export function withErrorCodes(markdown: string, types: readonly ErrorType[]): string {
  const start = markdown.indexOf(ERROR_CODES_START);
  const end = markdown.indexOf(ERROR_CODES_END);
  if (start < 0 || end < start) throw new Error("The error-codes page has no error-codes markers.");
  return `${markdown.slice(0, start + ERROR_CODES_START.length)}\n\n${errorCodesMarkdown(types)}\n\n${markdown.slice(end)}`;
}

export const errorCodesPath = (page: { path: string }) => resolve(DOCS, page.path);

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const placed = ERROR_CODE_PAGES.flatMap((page) => page.types);
  const unplaced = ERROR_TYPES.filter((type) => !placed.includes(type));
  if (unplaced.length > 0) throw new Error(`No error-codes page lists ${unplaced.join(", ")}.`);
  for (const page of ERROR_CODE_PAGES) {
    const path = errorCodesPath(page);
    writeFileSync(path, withErrorCodes(readFileSync(path, "utf8"), page.types));
    console.log(`Wrote the error-codes table to ${path}.`);
  }
}
