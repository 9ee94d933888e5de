/** Everything the CLI prints goes through here: JSON for scripts, aligned tables and records for people. */

export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

export function line(text = ""): void {
  process.stdout.write(`${text}\n`);
}

export function note(text: string): void {
  process.stderr.write(`${text}\n`);
}

export interface Column {
  header: string;
  /** A dotted path into the row, or a function of it. */
  value: string | ((row: Record<string, unknown>) => unknown);
}

/** A number for people: at most three decimals (0.8818181818181818 reads 0.882); JSON output keeps them all. */
export function round(value: number | null | undefined): string {
  if (value === null || value === undefined || Number.isNaN(value)) return "";
  return String(Number(value.toFixed(3)));
}

export function cell(value: unknown): string {
  if (value === null || value === undefined) return "";
  if (typeof value === "string") return value.replace(/\s+/g, " ");
  if (typeof value === "number") return round(value);
  if (typeof value === "boolean") return String(value);
  if (Array.isArray(value) && value.every((v) => typeof v !== "object" || v === null)) return value.join(",");
  return JSON.stringify(value);
}

function pick(row: Record<string, unknown>, path: string): unknown {
  let current: unknown = row;
  for (const key of path.split(".")) {
    if (current === null || typeof current !== "object") return undefined;
    current = (current as Record<string, unknown>)[key];
  }
  return current;
}

const MAX_CELL = 60;

function clip(text: string): string {
  return text.length > MAX_CELL ? `${text.slice(0, MAX_CELL - 1)}…` : text;
}

export function renderTable(rows: readonly Record<string, unknown>[], columns: readonly Column[]): string {
  const body = rows.map((row) =>
    columns.map((c) => clip(cell(typeof c.value === "string" ? pick(row, c.value) : c.value(row)))),
  );
  const header = columns.map((c) => c.header.toUpperCase());
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((r) => r[i]!.length)));
  const format = (cells: string[]) =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]!)))
      .join("  ")
      .trimEnd();
  return [format(header), ...body.map(format)].join("\n");
}

export function printTable(rows: readonly Record<string, unknown>[], columns: readonly Column[]): void {
  if (rows.length === 0) {
    line("(none)");
    return;
  }
  line(renderTable(rows, columns));
}

/** One object as `key  value` lines; nested objects and arrays of objects on one JSON line each. */
export function printRecord(record: Record<string, unknown>): void {
  const keys = Object.keys(record).filter((k) => k !== "object");
  const width = Math.max(0, ...keys.map((k) => k.length));
  for (const key of keys) line(`${key.padEnd(width)}  ${cell(record[key])}`);
}
