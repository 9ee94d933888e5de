import { ApiError } from "@rubricon/core";

/** A UTF-16 surrogate without its pair: JSON's `\ud800` escape allows it, UTF-8 (and so Postgres text) cannot hold it. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

type Flaw = "nul" | "surrogate";

function flawOf(text: string): Flaw | null {
  if (text.includes("\u0000")) return "nul";
  return LONE_SURROGATE.test(text) ? "surrogate" : null;
}

function find(value: unknown, path: string): { param: string; flaw: Flaw } | null {
  if (typeof value === "string") {
    const flaw = flawOf(value);
    return flaw ? { param: path || "body", flaw } : null;
  }
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = find(value[i], `${path}[${i}]`);
      if (found) return found;
    }
    return null;
  }
  if (value !== null && typeof value === "object") {
    for (const [key, v] of Object.entries(value)) {
      const param = path ? `${path}.${key}` : key;
      const flaw = flawOf(key);
      if (flaw) return { param, flaw };
      const found = find(v, param);
      if (found) return found;
    }
  }
  return null;
}

/**
 * Refuses input holding text that no field can store: a NUL character or a lone UTF-16 surrogate (Postgres text
 * and UTF-8 hold neither, so either would fail the statement as a 500). It is the caller's error and is named like
 * any other invalid field. Every procedure's input (whatever the transport: REST body, query or form fields, tRPC,
 * MCP) and every JSON body read outside the procedures passes here, before its schema.
 */
export function assertStorableText(input: unknown): void {
  const found = find(input, "");
  if (!found) return;
  const { param, flaw } = found;
  throw ApiError.invalid(
    param,
    flaw === "nul"
      ? `\`${param}\` contains a NUL character, which no field accepts.`
      : `\`${param}\` contains a lone UTF-16 surrogate (e.g. \`\\ud800\` without its pair), which is not text any field accepts.`,
  );
}
