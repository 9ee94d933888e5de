import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { eq, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { createDatabase, migrateDatabase, queryRows, sharedDatabase } from "./client";
import { newId } from "./ids";
import { users } from "./schema/index";
import { createTestDatabase } from "./testing";

describe("database client", () => {
  it("gives each test a fresh migrated database that reads and writes", async () => {
    const a = await createTestDatabase();
    const b = await createTestDatabase();
    try {
      const id = newId("user");
      await a.db.insert(users).values({ id, email: `${id}@example.com` });
      expect(await a.db.select().from(users).where(eq(users.id, id))).toHaveLength(1);
      expect(await b.db.select().from(users)).toHaveLength(0);
      const tables = await queryRows<{ n: number }>(a.db, sqlTableCount());
      expect(Number(tables[0]!.n)).toBeGreaterThanOrEqual(9);
    } finally {
      await a.dispose();
      await b.dispose();
    }
  });

  it("keeps the embedded database on disk across reopenings and migrates idempotently", async () => {
    const dataDir = join(mkdtempSync(join(tmpdir(), "pglite-")), "db");
    const first = createDatabase({ dataDir });
    await migrateDatabase(first);
    const id = newId("user");
    await first.db.insert(users).values({ id, email: `${id}@example.com` });
    await first.close();
    const second = createDatabase({ dataDir });
    await migrateDatabase(second);
    expect((await second.db.select().from(users)).map((u) => u.id)).toEqual([id]);
    await second.close();
  });

  it("shares one instance per process and configuration", async () => {
    const dataDir = join(mkdtempSync(join(tmpdir(), "pglite-")), "db");
    const [x, y] = await Promise.all([
      sharedDatabase({ dataDir, migrate: true }),
      sharedDatabase({ dataDir, migrate: true }),
    ]);
    expect(x).toBe(y);
    await x.close();
  });

  it("shows every statement with its parameters to onQuery, in transactions too", async () => {
    const seen: { query: string; params: readonly unknown[] }[] = [];
    const database = await createTestDatabase(process.env, {
      onQuery: (query, params) => seen.push({ query, params }),
    });
    try {
      const id = newId("user");
      seen.length = 0; // forget the migrations
      await database.db.transaction((tx) => tx.insert(users).values({ id, email: `${id}@example.com` }));
      await database.db.select().from(users).where(eq(users.id, id));
      const ours = seen.filter((s) => s.query.includes('"users"'));
      expect(ours.map((s) => s.query.split(" ")[0])).toEqual(["insert", "select"]);
      expect(ours[0]!.params).toContain(`${id}@example.com`);
      expect(ours[1]!.params).toEqual([id]);
    } finally {
      await database.dispose();
    }
  });

  it("makes prefixed ids", () => {
    expect(newId("evaluation")).toMatch(/^eval_[a-z0-9]{20,}$/);
    expect(newId("team")).not.toBe(newId("team"));
  });
});

function sqlTableCount() {
  return sql`select count(*)::int as n from information_schema.tables where table_schema = 'public'`;
}
