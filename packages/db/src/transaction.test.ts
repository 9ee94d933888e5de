import { type CountedClient, countedClient } from "@rubricon/postgres-patch/testing";
import { sql as drizzleSql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDatabase, type DbOrTx } from "./client";
import { commitWithLast, violatedUniqueIndex } from "./transaction";

/*
 * `commitWithLast` on Postgres, through a proxy that counts the client's turns (data from the client after an answer
 * from the server): each turn is one round trip. The round trips it saves and its refusal of a late statement are
 * the patched driver's (packages/postgres-patch).
 */
const PG = new URL(process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres");

let client: CountedClient;

beforeAll(async () => {
  client = await countedClient(PG);
});

afterAll(async () => {
  await client?.close();
});

describe("commitWithLast", () => {
  // The app's own client (every statement prepared), through the proxy, on one connection; a table all see.
  let app: ReturnType<typeof createDatabase>;
  const table = `commit_last_probe_${process.pid}`;
  const insert = (db: DbOrTx, n: number) =>
    db.execute(drizzleSql`insert into ${drizzleSql.identifier(table)} values (${n}::int)`);
  const stored = async (db: DbOrTx) => {
    const rows = await db.execute(drizzleSql`select n from ${drizzleSql.identifier(table)} order by n`);
    return (Array.isArray(rows) ? rows : (rows as unknown as { rows: unknown[] }).rows).map(
      (r) => (r as { n: number }).n,
    );
  };

  beforeAll(async () => {
    app = createDatabase({
      url: `postgres://postgres@127.0.0.1:${client.port}/${PG.pathname.slice(1)}`,
      maxConnections: 1,
    });
    await app.db.execute(drizzleSql`create table ${drizzleSql.identifier(table)} (n int primary key)`);
  });
  afterAll(async () => {
    await app?.db.execute(drizzleSql`drop table if exists ${drizzleSql.identifier(table)}`);
    await app?.close();
  });

  it("sends the last statements with the commit: begin with the first, then the last with the commit, two round trips", async () => {
    const transaction = (a: number, b: number) =>
      commitWithLast(app.db, async (tx) => {
        await tx.execute(drizzleSql`select 1`);
        return { value: "committed", last: Promise.all([insert(tx, a), insert(tx, b)]) };
      });
    // The first time, the insert is prepared (described, then run): a round trip of its own.
    await transaction(12, 13);
    let value = "";
    const turns = await client.turnsOf(async () => {
      value = await transaction(10, 11);
    });
    expect(value).toBe("committed");
    // Sent apart from the commit, the last statements would take a round trip of their own: three.
    expect(turns).toBe(2);
    expect(await stored(app.db)).toEqual([10, 11, 12, 13]);
  });

  it("rolls the whole transaction back when a last statement fails, and throws that statement's error", async () => {
    const failure = await commitWithLast(app.db, async (tx) => {
      await insert(tx, 20);
      return { value: "committed", last: Promise.all([insert(tx, 21), insert(tx, 10), insert(tx, 22)]) };
    }).catch((err: unknown) => err);
    expect(violatedUniqueIndex(failure)).toBe(`${table}_pkey`);
    expect((await stored(app.db)).filter((n) => n >= 20)).toEqual([]);
  });

  it("does the same on PGlite, whose commit of a failed transaction fails of its own", async () => {
    const embedded = createDatabase({});
    try {
      await embedded.db.execute(drizzleSql`create table ${drizzleSql.identifier(table)} (n int primary key)`);
      expect(
        await commitWithLast(embedded.db, async (tx) => ({
          value: 1,
          last: Promise.all([insert(tx, 1), insert(tx, 2)]),
        })),
      ).toBe(1);
      const failure = await commitWithLast(embedded.db, async (tx) => ({
        value: 2,
        last: Promise.all([insert(tx, 3), insert(tx, 1)]),
      })).catch((err: unknown) => err);
      expect(violatedUniqueIndex(failure)).toBe(`${table}_pkey`);
      expect(await stored(embedded.db)).toEqual([1, 2]);
    } finally {
      await embedded.close();
    }
  });

  it("refuses a last statement that waited for another's answer and so came after the commit", async () => {
    const own = createDatabase({ url: PG.toString(), maxConnections: 2 });
    try {
      const late = commitWithLast(own.db, async (tx) => ({
        value: "committed",
        last: (async () => {
          await tx.execute(drizzleSql`select 1`);
          return tx.execute(drizzleSql`select 2`);
        })(),
      }));
      // Unpatched, postgres.js queued it for a connection the transaction no longer held: it never answered.
      const failure = await late.catch((err: unknown) => err);
      expect((failure as { cause?: { code?: string } }).cause?.code).toBe("TRANSACTION_ENDED");
    } finally {
      await own.close();
    }
  });

  it("awaits the last statements inside another transaction, where only a failing function rolls back to its savepoint", async () => {
    const kept = await app.db.transaction(async (outer) => {
      await insert(outer, 30);
      const failure = await commitWithLast(outer, async (tx) => ({
        value: 0,
        last: Promise.all([insert(tx, 31), insert(tx, 30)]),
      })).catch((err: unknown) => err);
      expect(violatedUniqueIndex(failure)).toBe(`${table}_pkey`);
      // The outer transaction goes on: the savepoint took the failure back.
      await insert(outer, 32);
      return "outer committed";
    });
    expect(kept).toBe("outer committed");
    expect((await stored(app.db)).filter((n) => n >= 30)).toEqual([30, 32]);
  });
});
