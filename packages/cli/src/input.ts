import { readFileSync } from "node:fs";
import { extname } from "node:path";
import { UsageError } from "./errors";

/**
 * A request body from `--file PATH` (JSON, or YAML by extension or when it is not JSON; `-` reads stdin). Any
 * problem is bad usage, reported before anything is sent.
 */
export async function readBodyFile(path: string): Promise<Record<string, unknown>> {
  let text: string;
  try {
    text = path === "-" ? readFileSync(0, "utf8") : readFileSync(path, "utf8");
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const why =
      code === "ENOENT" ? "no such file" : code === "EISDIR" ? "it is a folder" : (err as Error).message;
    throw new UsageError(`Cannot read --file ${path}: ${why}.`);
  }
  const ext = extname(path).toLowerCase();
  let value: unknown;
  if (ext === ".yaml" || ext === ".yml") value = await parseYaml(path, text);
  else {
    try {
      value = JSON.parse(text);
    } catch (err) {
      if (ext === ".json")
        throw new UsageError(`--file ${path} is not valid JSON: ${(err as Error).message}`);
      value = await parseYaml(path, text);
    }
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw new UsageError(`--file ${path} must hold one object (the request body), not ${describe(value)}.`);
  }
  return value as Record<string, unknown>;
}

async function parseYaml(path: string, text: string): Promise<unknown> {
  const { parse } = await import("yaml");
  try {
    return parse(text);
  } catch (err) {
    throw new UsageError(
      `--file ${path} is neither valid JSON nor valid YAML: ${(err as Error).message.split("\n")[0]}`,
    );
  }
}

function describe(value: unknown): string {
  if (value === null || value === undefined) return "nothing";
  if (Array.isArray(value)) return "a list";
  return `a ${typeof value}`;
}

/** `--set key=value` pairs: the value is read as JSON when it parses (numbers, booleans, lists), else as text. */
export function applySets(
  body: Record<string, unknown>,
  sets: readonly string[] | undefined,
): Record<string, unknown> {
  for (const pair of sets ?? []) {
    const eq = pair.indexOf("=");
    if (eq <= 0) throw new UsageError(`--set takes key=value, got "${pair}".`);
    const path = pair.slice(0, eq).split(".");
    const raw = pair.slice(eq + 1);
    let value: unknown = raw;
    try {
      value = JSON.parse(raw);
    } catch {
      // Plain text.
    }
    let target = body;
    for (const key of path.slice(0, -1)) {
      const next = target[key];
      if (next === null || typeof next !== "object" || Array.isArray(next)) target[key] = {};
      target = target[key] as Record<string, unknown>;
    }
    target[path.at(-1)!] = value;
  }
  return body;
}

export function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

export function positiveInt(name: string) {
  return (value: string): number => {
    const n = Number(value);
    if (!Number.isInteger(n) || n <= 0)
      throw new UsageError(`${name} must be a whole number above 0, got "${value}".`);
    return n;
  };
}

export function commaList(value: string): string[] {
  return value
    .split(",")
    .map((v) => v.trim())
    .filter(Boolean);
}
