import { readFileSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { ERROR_CODES, type ErrorCode } from "@rubricon/contracts";

/** The section of docs/api.md between these markers is generated from the registry of error codes. */
export const ERROR_CODES_START =
  "<!-- error-codes:start (generated: pnpm --filter @rubricon/api docs:errors) -->";
export const ERROR_CODES_END = "<!-- error-codes:end -->";
export const API_DOC = resolve(import.meta.dirname, "../../../../docs/api.md");

/**
 * The error-codes table as Markdown, in the order the dashboard's `/docs/errors` shows it, with its columns padded
 * the way the repository's formatter lays tables out, so formatting leaves it unchanged.
 */
export function errorCodesMarkdown(): string {
  const rows = (Object.entries(ERROR_CODES) as [ErrorCode, (typeof ERROR_CODES)[ErrorCode]][])
    .sort(([a, x], [b, y]) => x.status - y.status || a.localeCompare(b))
    .map(([code, e]) => [`\`${code}\``, `\`${e.type}\``, String(e.status), e.summary.replaceAll("|", "\\|")]);
  const table = [["Code", "Type", "HTTP", "Meaning"], ...rows];
  const widths = table[0]!.map((_, i) => Math.max(...table.map((row) => row[i]!.length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i]!)).join(" | ")} |`;
  return [line(table[0]!), line(widths.map((w) => "-".repeat(w))), ...rows.map(line)].join("\n");
}

/** docs/api.md with its generated section replaced by the current table. */
export function withErrorCodes(markdown: string): string {
  const start = markdown.indexOf(ERROR_CODES_START);
  const end = markdown.indexOf(ERROR_CODES_END);
  if (start < 0 || end < start) throw new Error("docs/api.md has no error-codes markers.");
  return `${markdown.slice(0, start + ERROR_CODES_START.length)}\n\n${errorCodesMarkdown()}\n\n${markdown.slice(end)}`;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  writeFileSync(API_DOC, withErrorCodes(readFileSync(API_DOC, "utf8")));
  console.log(`Wrote the error-codes table to ${API_DOC}.`);
}
