import { eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { compiledStatement, placeholders } from "./compiled";
import { newId } from "./ids";
import { teams, users } from "./schema/index";
import { createTestDatabase, type TestDatabase } from "./testing";

// Runs on whichever driver the suite uses: PGlite by default, postgres.js with DATABASE_URL (CI runs both).
let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(() => database?.dispose());

const insertUser = compiledStatement<{ id: string; email: string; name: string | null; createdAt: Date }>(
  (db) =>
    db
      .insert(users)
      .values(placeholders(["id", "email", "name", "createdAt"]) as unknown as typeof users.$inferInsert)
      .returning({ email: sql<string>`upper(${users.email})`.as("loud_email") }),
);

const renameTeam = compiledStatement<{ id: string; name: string }>((db) =>
  db
    .update(teams)
    .set({ name: sql.placeholder("name") as unknown as string })
    .where(eq(teams.id, sql.placeholder("id"))),
);

describe("compiled statements", () => {
  it("encode values through their columns, keep null as null, and answer raw rows", async () => {
    const id = newId("user");
    const createdAt = new Date("2026-01-02T03:04:05.678Z");
    const rows = await insertUser(database.db, { id, email: `${id}@example.com`, name: null, createdAt });
    expect(rows).toEqual([{ loud_email: `${id}@example.com`.toUpperCase() }]);
    const [user] = await database.db.select().from(users).where(eq(users.id, id));
    expect(user?.name).toBeNull();
    expect(user?.createdAt.toISOString()).toBe(createdAt.toISOString());
  });

  it("run on the transaction's own connection: a rollback takes the write back", async () => {
    const id = newId("user");
    await expect(
      database.db.transaction(async (tx) => {
        await insertUser(tx, { id, email: `${id}@example.com`, name: "Ada", createdAt: new Date() });
        expect(await tx.select().from(users).where(eq(users.id, id))).toHaveLength(1);
        throw new Error("roll back");
      }),
    ).rejects.toThrow("roll back");
    expect(await database.db.select().from(users).where(eq(users.id, id))).toHaveLength(0);
  });

  it("bind placeholders outside a column too, and refuse a missing value", async () => {
    const id = newId("team");
    await database.db.insert(teams).values({ id, name: "Before" });
    await renameTeam(database.db, { id, name: "After" });
    const [team] = await database.db.select().from(teams).where(eq(teams.id, id));
    expect(team?.name).toBe("After");
    await expect(renameTeam(database.db, { id } as { id: string; name: string })).rejects.toThrow(
      /no value for placeholder "name"/,
    );
  });
});
