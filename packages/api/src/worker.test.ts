import { existsSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";

const SRC = import.meta.dirname;
// Value imports and re-exports of this package's own modules; `import type` is erased and loads nothing.
const STATIC_IMPORT = /^(?:import|export)\s+(?!type\s)[^;]*?\sfrom\s+"(\.[^"]+)"/gms;

function resolveModule(from: string, specifier: string): string {
  const base = resolve(dirname(from), specifier);
  const found = [`${base}.ts`, join(base, "index.ts"), base].find((p) => p.endsWith(".ts") && existsSync(p));
  if (!found) throw new Error(`${relative(SRC, from)}: cannot resolve ${specifier}`);
  return found;
}

/** Every module of this package that loading `entry` loads, following static imports only. */
function staticallyLoaded(entry: string): Set<string> {
  const seen = new Set<string>();
  const queue = [entry];
  while (queue.length > 0) {
    const file = queue.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    for (const m of readFileSync(file, "utf8").matchAll(STATIC_IMPORT))
      queue.push(resolveModule(file, m[1]!));
  }
  return new Set([...seen].map((f) => relative(SRC, f)));
}

describe("the worker's entry into the package", () => {
  it("loads none of the web app: no HTTP surface, routers, OAuth or MCP server", () => {
    const loaded = staticallyLoaded(join(SRC, "worker.ts"));
    // It does load what it runs: the loops, the database, health and metrics.
    expect(loaded).toContain("background/loops.ts");
    expect(loaded).toContain("database.ts");
    expect(loaded).toContain("observability/health.ts");
    const web = [...loaded].filter((f) =>
      /^(app|index|server-main)\.ts$|^(routers|http|oauth|mcp|openapi|trpc)\//.test(f),
    );
    expect(web).toEqual([]);
  });

  it("is what the worker process imports", () => {
    const main = readFileSync(resolve(SRC, "../../../apps/worker/src/main.ts"), "utf8");
    const packages = [...main.matchAll(/from\s+"(@rubricon\/api[^"]*)"/g)].map((m) => m[1]);
    expect(packages).toEqual(["@rubricon/api/worker"]);
  });
});
