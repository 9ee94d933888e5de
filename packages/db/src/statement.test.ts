import { eq, getTableColumns, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from "vitest";
import { newId } from "./ids";
import { teamMembers, teams, users } from "./schema/index";
import { hotStatement, type Params, rowParams } from "./statement";
import { createTestDatabase, type TestDatabase } from "./testing";

// Runs on whichever driver the suite uses: PGlite by default, postgres.js with DATABASE_URL (CI runs both).
let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(() => database?.dispose());

type UserRow = typeof users.$inferSelect;

const insertUser = hotStatement("test_insert_user", (db, $: Params<UserRow>) =>
  db
    .insert(users)
    .values(rowParams(users, $))
    .returning({ id: users.id, createdAt: users.createdAt, loudEmail: sql<string>`upper(${users.email})` }),
);

const renameTeam = hotStatement("test_rename_team", (db, $: Params<{ id: string; name: string }>) =>
  db
    .update(teams)
    .set({ name: sql`${$.name}` })
    .where(eq(teams.id, $.id))
    .returning({ name: teams.name, customLimits: teams.customLimits }),
);

const membershipOf = hotStatement("test_membership", (db, $: Params<{ teamId: string; userId: string }>) =>
  db
    .select({ team: teams, role: teamMembers.role })
    .from(teamMembers)
    .innerJoin(teams, eq(teams.id, teamMembers.teamId))
    .where(eq(teamMembers.teamId, $.teamId))
    .limit(1),
);

const teamsIn = hotStatement("test_teams_in", (db, $: Params<{ ids: string[] }>) =>
  db.select({ id: teams.id }).from(teams).where(sql`${teams.id} = any(${$.ids})`).orderBy(teams.id),
);

// Read through a subquery and a CTE on top of it: each column reaches the row through two aliases.
const usersThroughAliases = hotStatement("test_users_through_aliases", (db, $: Params<{ id: string }>) => {
  const inner = db.select().from(users).where(eq(users.id, $.id)).as("inner_users");
  const outer = db.$with("outer_users").as(db.select(inner._.selectedFields).from(inner));
  return db.with(outer).select(outer._.selectedFields).from(outer);
});

/** A wide selection: every column of a table (text, jsonb, dates) and two expressions, one decoded. */
const teamWithCountsFields = () => ({
  ...getTableColumns(teams),
  members: sql<number>`(select count(*) from team_members m where m.team_id = ${teams.id})`.mapWith(Number),
  upperName: sql<string>`upper(${teams.name})`,
});

const teamWithCounts = hotStatement("test_team_with_counts", (db, $: Params<{ id: string }>) =>
  db.select(teamWithCountsFields()).from(teams).where(eq(teams.id, $.id)),
);

const withOptionalMembership = hotStatement("test_optional_membership", (db, $: Params<{ teamId: string }>) =>
  db
    .select({
      team: { id: teams.id, name: teams.name },
      member: teamMembers,
      joined: { role: teamMembers.role },
    })
    .from(teams)
    .leftJoin(teamMembers, eq(teamMembers.teamId, teams.id))
    .where(eq(teams.id, $.teamId)),
);

function userRow(overrides: Partial<UserRow> = {}): UserRow {
  const id = newId("user");
  const now = new Date("2026-01-02T03:04:05.678Z");
  return {
    id,
    email: `${id}@example.com`,
    name: null,
    passwordHash: null,
    createdAt: now,
    updatedAt: now,
    ...overrides,
  };
}

describe("hot statements", () => {
  it("type their rows by the selection and their values by the placeholders", async () => {
    expectTypeOf(insertUser).parameter(1).toEqualTypeOf<UserRow>();
    expectTypeOf(insertUser).returns.resolves.toEqualTypeOf<
      { id: string; createdAt: Date; loudEmail: string }[]
    >();
    expectTypeOf(renameTeam).parameter(1).toEqualTypeOf<{ id: string; name: string }>();
    expectTypeOf(membershipOf).returns.resolves.items.toHaveProperty("team");
    // A whole-row insert needs a value for every column.
    hotStatement("test_partial_row", (db, $: Params<Omit<UserRow, "name">>) =>
      // @ts-expect-error: the values have no `name`
      db.insert(users).values(rowParams(users, $)),
    );
    // @ts-expect-error: a misspelt value; were it run anyway, its placeholder would find no value
    const misspelt = renameTeam(database.db, { id: "team_missing", nmae: "After" });
    await expect(misspelt).rejects.toThrow(/no value for placeholder "name"/);
  });

  it("encode values through their columns, keep null as null, and decode rows as Drizzle does", async () => {
    const row = userRow();
    const rows = await insertUser(database.db, row);
    expect(rows).toEqual([{ id: row.id, createdAt: row.createdAt, loudEmail: row.email.toUpperCase() }]);
    expect(rows[0]!.createdAt).toBeInstanceOf(Date);
    const [user] = await database.db.select().from(users).where(eq(users.id, row.id));
    expect(user?.name).toBeNull();
    expect(user?.createdAt.toISOString()).toBe(row.createdAt.toISOString());
    // A value given as undefined, for a column with its own encoding or without, is sent as null.
    const blank = userRow({ name: "x", passwordHash: "y" });
    await insertUser(database.db, { ...blank, name: undefined as never, passwordHash: undefined as never });
    const [stored] = await database.db.select().from(users).where(eq(users.id, blank.id));
    expect(stored).toMatchObject({ name: null, passwordHash: null, email: blank.email });
  });

  it("map a wide row to what Drizzle maps, value for value and key for key", async () => {
    const id = newId("team");
    await database.db.insert(teams).values({ id, name: "Wide", customLimits: { rpm: 7 } });
    const both = await Promise.all([
      teamWithCounts(database.db, { id }),
      database.db.select(teamWithCountsFields()).from(teams).where(eq(teams.id, id)),
    ]);
    const [ours, drizzles] = both.map((rows) => rows[0]!);
    expect(ours).toEqual(drizzles);
    expect(Object.keys(ours!)).toEqual(Object.keys(drizzles!));
    expect(ours!.customLimits).toEqual({ rpm: 7 });
    expect(ours!.members).toBe(0);
    expect(ours!.createdAt).toBeInstanceOf(Date);
    expect(ours!.upperName).toBe("WIDE");
  });

  it("run on the transaction's own connection: a rollback takes the write back", async () => {
    const row = userRow({ name: "Ada" });
    await expect(
      database.db.transaction(async (tx) => {
        await insertUser(tx, row);
        expect(await tx.select().from(users).where(eq(users.id, row.id))).toHaveLength(1);
        throw new Error("roll back");
      }),
    ).rejects.toThrow("roll back");
    expect(await database.db.select().from(users).where(eq(users.id, row.id))).toHaveLength(0);
  });

  it("map joined selections and json columns, and bind arrays", async () => {
    const teamId = newId("team");
    const other = newId("team");
    const user = userRow();
    await database.db.insert(users).values(user);
    await database.db.insert(teams).values([
      { id: teamId, name: "Before", customLimits: { rpm: 5 } },
      { id: other, name: "Other" },
    ]);
    await database.db.insert(teamMembers).values({ teamId, userId: user.id, role: "owner" });
    const [renamed] = await renameTeam(database.db, { id: teamId, name: "After" });
    expect(renamed).toEqual({ name: "After", customLimits: { rpm: 5 } });
    const [membership] = await membershipOf(database.db, { teamId, userId: user.id });
    expect(membership?.role).toBe("owner");
    expect(membership?.team.name).toBe("After");
    expect(membership?.team.createdAt).toBeInstanceOf(Date);
    expect(await teamsIn(database.db, { ids: [other, teamId].sort() })).toEqual(
      [other, teamId].sort().map((id) => ({ id })),
    );
    expect(await teamsIn(database.db, { ids: [] })).toEqual([]);
    expect(await usersThroughAliases(database.db, { id: user.id })).toEqual([user]);

    // Nested objects come out as Drizzle builds them, key for key; an outer join with no row nulls its object.
    const drizzles = await database.db
      .select({ team: teams, role: teamMembers.role })
      .from(teamMembers)
      .innerJoin(teams, eq(teams.id, teamMembers.teamId))
      .where(eq(teamMembers.teamId, teamId))
      .limit(1);
    expect(membership).toEqual(drizzles[0]);
    expect(Object.keys(membership!)).toEqual(Object.keys(drizzles[0]!));
    expect(Object.keys(membership!.team)).toEqual(Object.keys(drizzles[0]!.team));
    const [lonely] = await withOptionalMembership(database.db, { teamId: other });
    expect(lonely).toEqual({ team: { id: other, name: "Other" }, member: null, joined: null });
    const [joined] = await withOptionalMembership(database.db, { teamId });
    expect(joined?.member?.role).toBe("owner");
    expect(joined?.joined).toEqual({ role: "owner" });
  });

  it("are built once, for the pool and every transaction, into the SQL Drizzle writes", async () => {
    let builds = 0;
    const teamName = hotStatement("test_team_name", (db, $: Params<{ id: string }>) => {
      builds++;
      return db.select({ name: teams.name }).from(teams).where(eq(teams.id, $.id));
    });
    expect(await teamName(database.db, { id: "team_none" })).toEqual([]);
    await database.db.transaction(async (tx) => {
      expect(await teamName(tx, { id: "team_none" })).toEqual([]);
      expect(await teamName(tx, { id: "team_none" })).toEqual([]);
    });
    expect(builds).toBe(1);
    expect(teamName.sql).toBe('select "name" from "teams" where "teams"."id" = $1');
    expect(renameTeam.sql).toMatch(/^update "teams" set "name" = \$1 where "teams"."id" = \$2 returning/);
  });
});
