import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { fileURLToPath, pathToFileURL } from "node:url";
import postgres from "postgres";
import { describe, expect, it } from "vitest";

/**
 * Operators start every replica at once. Four `migrate` processes (the path every process takes at start) on one
 * fresh Postgres database: all exit 0 and the migrations are applied once each. Without the advisory lock two of
 * them race on `CREATE SCHEMA`/`CREATE TABLE` and one fails on `pg_type_typname_nsp_index`.
 */
const BASE = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
const TSX = pathToFileURL(
  fileURLToPath(new URL("../node_modules/tsx/dist/loader.mjs", import.meta.url)),
).href;
const MIGRATE = fileURLToPath(new URL("./migrate-cli.ts", import.meta.url));

function run(url: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ["--import", TSX, MIGRATE], {
      env: { ...process.env, DATABASE_URL: url },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (d) => (output += d));
    child.stderr.on("data", (d) => (output += d));
    child.on("close", (code) => resolve({ code, output }));
  });
}

describe("migrations started by several processes at once", () => {
  it("four processes on an empty database all succeed", async () => {
    const name = `rubricon_t_mig_${randomBytes(5).toString("hex")}`;
    const admin = postgres(BASE, { max: 1, onnotice: () => {} });
    await admin.unsafe(`CREATE DATABASE "${name}"`);
    const url = new URL(BASE);
    url.pathname = `/${name}`;
    try {
      const results = await Promise.all([1, 2, 3, 4].map(() => run(url.toString())));
      for (const r of results) expect(r, r.output).toMatchObject({ code: 0 });
      const check = postgres(url.toString(), { max: 1, onnotice: () => {} });
      try {
        const [applied] = await check`select count(*)::int as n from drizzle.__drizzle_migrations`;
        const journal = (await import("../drizzle/meta/_journal.json", { with: { type: "json" } })).default;
        expect(applied?.n).toBe(journal.entries.length);
      } finally {
        await check.end();
      }
    } finally {
      await admin.unsafe(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      await admin.end();
    }
  }, 120_000);
});
