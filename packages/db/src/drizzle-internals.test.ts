import { eq, is, SQL, Subquery, sql } from "drizzle-orm";
import { alias, PgColumn, PgSession } from "drizzle-orm/pg-core";
import { drizzle as drizzlePostgres } from "drizzle-orm/postgres-js";
import { npmVersion } from "drizzle-orm/version";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  captureQuery,
  decoderOf,
  isIdentityDecoder,
  isIdentityEncoder,
  PINNED_DRIZZLE_VERSION,
  placeholderOf,
  postgresJsClientOf,
  prepareOnSession,
  sessionOf,
  unaliased,
} from "./drizzle-internals";
import { newId } from "./ids";
import * as schema from "./schema/index";
import { teamMembers, teams, users } from "./schema/index";
import { createTestDatabase, type TestDatabase } from "./testing";

// Each numbered assumption in drizzle-internals.ts is checked here against the installed Drizzle, on whichever
// driver the suite uses (PGlite by default, postgres.js with DATABASE_URL).
let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(() => database?.dispose());

const hint = "Drizzle changed: re-check src/drizzle-internals.ts against its private API";

describe("Drizzle internals (src/drizzle-internals.ts)", () => {
  it("run on the Drizzle version they were written for", () => {
    // An upgrade lands here first: re-check every numbered assumption in drizzle-internals.ts, then move the pin.
    expect(npmVersion, hint).toBe(PINNED_DRIZZLE_VERSION);
  });

  it("1: a handle's session prepares a compiled query, on the pool and on a transaction", async () => {
    const teamId = newId("team");
    await database.db.insert(teams).values({ id: teamId, name: "Internals" });
    const parts = captureQuery("t_team_name", (db) =>
      db
        .select({ name: teams.name })
        .from(teams)
        .where(eq(teams.id, sql.placeholder("id"))),
    );
    const pool = sessionOf(database.db);
    expect(is(pool, PgSession), hint).toBe(true);
    expect(await prepareOnSession(pool, parts, [teamId], "t_team_name").execute()).toEqual([
      { name: "Internals" },
    ]);
    await database.db.transaction(async (tx) => {
      const session = sessionOf(tx);
      expect(is(session, PgSession), hint).toBe(true);
      expect(session, hint).not.toBe(pool);
      await tx.update(teams).set({ name: "Inside" }).where(eq(teams.id, teamId));
      // The transaction's session sees its own uncommitted write: it runs on the transaction's connection.
      expect(await prepareOnSession(session, parts, [teamId], "t_team_name").execute()).toEqual([
        { name: "Inside" },
      ]);
    });
  });

  it("2: a postgres.js session names the client it sends on", async () => {
    // postgres.js connects lazily: nothing is sent to this address.
    const client = postgres("postgres://127.0.0.1:9/none", { max: 1 });
    try {
      const db = drizzlePostgres(client, { schema });
      expect(postgresJsClientOf(sessionOf(db as never)), hint).toBe(client);
    } finally {
      await client.end({ timeout: 0 });
    }
    await database.db.transaction(async (tx) => {
      const inside = postgresJsClientOf(sessionOf(tx));
      if (database.kind === "postgres") {
        // A transaction's client is its reserved connection, which answers queries as the pool does.
        expect(typeof inside?.unsafe, hint).toBe("function");
        expect(await inside!.unsafe("select 1 as one")).toEqual([{ one: 1 }]);
      } else {
        expect(inside).toBeUndefined();
      }
    });
    expect(postgresJsClientOf(sessionOf(database.db)) === undefined).toBe(database.kind === "pglite");
  });

  it("3: a select's prepared query carries which joined tables may be absent, and its mapping reads it", async () => {
    const build = (db: typeof database.db) =>
      db
        .select({ team: teams, member: teamMembers })
        .from(teams)
        .leftJoin(teamMembers, eq(teamMembers.teamId, teams.id))
        .where(eq(teams.id, sql.placeholder("id")));
    const own = build(database.db).prepare("t_own");
    expect((own as unknown as { joinsNotNullableMap: unknown }).joinsNotNullableMap, hint).toEqual({
      teams: true,
      team_members: false,
    });
    const parts = captureQuery("t_left_join", build);
    expect(parts.joinsNotNullableMap, hint).toEqual({ teams: true, team_members: false });
    const teamId = newId("team");
    await database.db.insert(teams).values({ id: teamId, name: "Alone" });
    const [row] = (await prepareOnSession(
      sessionOf(database.db),
      parts,
      [teamId],
      "t_left_join",
    ).execute()) as {
      team: { name: string };
      member: unknown;
    }[];
    expect(row?.team.name).toBe("Alone");
    expect(row?.member, hint).toBeNull();
  });

  it("4, 5: a builder's prepare hands the session its query and fields or row mapper, and nothing runs", () => {
    const select = captureQuery("t_select", (db) =>
      db
        .select({ id: users.id, email: users.email })
        .from(users)
        .where(eq(users.id, sql.placeholder("id"))),
    );
    expect(select.query.sql).toBe('select "id", "email" from "users" where "users"."id" = $1');
    expect(select.fields?.map(({ path }) => path)).toEqual([["id"], ["email"]]);
    expect(select.fields?.map(({ field }) => field)).toEqual([users.id, users.email]);
    expect(select.mapRows).toBeUndefined();

    const insert = captureQuery("t_insert", (db) =>
      db
        .insert(teams)
        .values({ id: sql.placeholder("id"), name: sql.placeholder("name") })
        .returning({ id: teams.id }),
    );
    expect(insert.query.sql).toMatch(/^insert into "teams" .* returning "id"$/);
    expect(insert.fields?.map(({ path }) => path)).toEqual([["id"]]);

    const relational = captureQuery("t_relational", (db) =>
      db.query.teams.findFirst({ where: eq(teams.id, sql.placeholder("id")) }),
    );
    expect(relational.fields).toBeUndefined();
    expect(typeof relational.mapRows, hint).toBe("function");

    expect(() => captureQuery("t_elsewhere", () => database.db.select().from(teams) as never)).toThrow(
      /build it on the db it is given/,
    );
  });

  it("6: a selected expression decodes through its decoder, aliased or in a subquery", () => {
    const counted = sql<number>`count(*)`.mapWith(Number);
    expect(decoderOf(counted).mapFromDriverValue("5"), hint).toBe(5);
    expect(decoderOf(counted.as("n")).mapFromDriverValue("6"), hint).toBe(6);
    expect(decoderOf(new Subquery(counted, {}, "sub")).mapFromDriverValue("7"), hint).toBe(7);
    expect(decoderOf(sql`1`).mapFromDriverValue("as is"), hint).toBe("as is");
    expect(decoderOf(users.createdAt)).toBe(users.createdAt);
    expect(is(counted, SQL)).toBe(true);
  });

  it("6: a decoder that hands values back unchanged is known as such, one that decodes is not", () => {
    for (const identity of [teams.name, teams.id, sql`1`, sql<string>`x`.as("x"), users.email])
      expect(isIdentityDecoder(decoderOf(identity)), hint).toBe(true);
    for (const decoding of [users.createdAt, teams.customLimits, sql<number>`count(*)`.mapWith(Number)])
      expect(isIdentityDecoder(decoderOf(decoding)), hint).toBe(false);
    // An identity decoder's values are its inputs: what the row mapping relies on when it skips the call.
    const value = { some: "value" };
    expect(decoderOf(teams.name).mapFromDriverValue(value)).toBe(value);
    expect(decoderOf(sql`1`).mapFromDriverValue(value)).toBe(value);
    // The same for encoders, which bound placeholders go through.
    expect(isIdentityEncoder(teams.name), hint).toBe(true);
    expect(teams.name.mapToDriverValue(value)).toBe(value);
    for (const encoding of [users.createdAt, teams.customLimits])
      expect(isIdentityEncoder(encoding), hint).toBe(false);
  });

  it("7: a column read through an alias is a proxy whose own properties are the column's", () => {
    const aliased = alias(teams, "t").createdAt;
    expect(aliased.table, hint).not.toBe(teams);
    const copy = unaliased(aliased);
    expect(is(copy, PgColumn), hint).toBe(true);
    expect(copy.table, hint).toBe(teams);
    expect(copy.name).toBe(teams.createdAt.name);
    const stored = "2026-01-02 03:04:05.678+00";
    expect(copy.mapFromDriverValue(stored), hint).toEqual(teams.createdAt.mapFromDriverValue(stored));
    expect(copy.mapFromDriverValue(stored)).toBeInstanceOf(Date);

    const inner = database.db.select().from(users).as("inner_users");
    const throughSubquery = inner._.selectedFields.createdAt as unknown as PgColumn;
    expect(unaliased(throughSubquery).table, hint).toBe(users);
  });

  it("8: a compiled query's params hold its placeholders, bare or with the column that encodes them", () => {
    const { query } = captureQuery("t_params", (db) =>
      db
        .update(teams)
        .set({ customLimits: sql.placeholder("limits") as never })
        .where(eq(teams.id, sql.placeholder("id"))),
    );
    const [encoded, bare] = query.params.map(placeholderOf);
    expect(bare, hint).toEqual({ name: "id", encoder: undefined });
    expect(encoded?.name, hint).toBe("limits");
    expect(encoded?.encoder, hint).toBe(teams.customLimits);
    // The json column encodes: an object bound bare would reach the driver as an object.
    expect(encoded?.encoder?.mapToDriverValue({ rpm: 5 }), hint).toBe('{"rpm":5}');
    expect(placeholderOf("a value")).toBeUndefined();
  });
});
