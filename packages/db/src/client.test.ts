import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { count, eq, like } from "drizzle-orm";
import { pgSchema, pgTable, text } from "drizzle-orm/pg-core";
import { describe, expect, it } from "vitest";
import { createDatabase, migrateDatabase, sharedDatabase } from "./client";
import { newId } from "./ids";
import { users } from "./schema/index";
import { hotStatement, type Params } from "./statement";
import { createTestDatabase } from "./testing";

const informationSchemaTables = pgSchema("information_schema").table("tables", {
  tableSchema: text("table_schema").notNull(),
  tableName: text("table_name").notNull(),
});
/** The statements prepared on the connection that reads it. */
const preparedStatements = pgTable("pg_prepared_statements", { statement: text("statement").notNull() });

const userByEmail = hotStatement("test_user_by_email", (db, $: Params<{ email: string }>) =>
  db.select({ id: users.id }).from(users).where(eq(users.email, $.email)),
);

describe("database client", () => {
  it("gives each test a fresh migrated database that reads and writes", async () => {
    const a = await createTestDatabase();
    const b = await createTestDatabase();
    try {
      const id = newId("user");
      await a.db.insert(users).values({ id, email: `${id}@example.com` });
      expect(await a.db.select().from(users).where(eq(users.id, id))).toHaveLength(1);
      expect(await b.db.select().from(users)).toHaveLength(0);
      const [tables] = await a.db
        .select({ n: count() })
        .from(informationSchemaTables)
        .where(eq(informationSchemaTables.tableSchema, "public"));
      expect(tables?.n).toBeGreaterThanOrEqual(9);
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

  it("prepares statements on Postgres unless told not to, on the pool and in transactions", async () => {
    if (!process.env.DATABASE_URL) {
      // The embedded database keeps no statements per connection: the option is accepted and changes nothing.
      const embedded = createDatabase({ prepareStatements: false });
      const [tables] = await embedded.db.select({ n: count() }).from(informationSchemaTables);
      expect(tables?.n).toBeGreaterThan(0);
      await embedded.close();
      return;
    }
    const test = await createTestDatabase();
    try {
      for (const prepareStatements of [true, false]) {
        // One connection, so the pool and the transaction share the list of prepared statements read here.
        const database = createDatabase({ url: test.url, maxConnections: 1, prepareStatements });
        try {
          expect(await userByEmail(database.db, { email: "nobody@example.com" })).toEqual([]);
          const statements = await database.db.transaction(async (tx) => {
            await tx.select().from(users).where(eq(users.name, "nobody"));
            return tx
              .select({ statement: preparedStatements.statement })
              .from(preparedStatements)
              .where(like(preparedStatements.statement, '%from "users"%'));
          });
          const texts = statements.map((s) => s.statement);
          expect(
            texts.some((t) => t.includes('"users"."email" = $1')),
            `hot statement, ${prepareStatements}`,
          ).toBe(prepareStatements);
          expect(
            texts.some((t) => t.includes('"users"."name" = $1')),
            `builder query, ${prepareStatements}`,
          ).toBe(prepareStatements);
        } finally {
          await database.close();
        }
      }
    } finally {
      await test.dispose();
    }
  });

  it("makes prefixed ids", () => {
    expect(newId("evaluation")).toMatch(/^eval_[a-z0-9]{20,}$/);
    expect(newId("team")).not.toBe(newId("team"));
  });
});
