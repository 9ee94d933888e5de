import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

/*
 * A statement made on a transaction's handle after the transaction's end was sent is refused with
 * `TRANSACTION_ENDED`. Upstream, it ran on whatever the connection did next, outside the transaction, or waited for
 * ever for a connection the transaction no longer held. On Postgres (DATABASE_URL, else the local server).
 */
const url = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
let sql: postgres.Sql;
const table = `transaction_end_probe_${process.pid}`;

beforeAll(async () => {
  sql = postgres(url, { max: 2, onnotice: () => {} });
  await sql`create table if not exists ${sql(table)} (n int primary key)`;
});

afterAll(async () => {
  await sql`drop table if exists ${sql(table)}`;
  await sql.end({ timeout: 1 });
});

const stored = async () => (await sql`select n from ${sql(table)} order by n`).map((r) => r.n as number);

/** The error a pending statement settles with, or "pending" when it has not settled in `ms`. */
const settled = (q: Promise<unknown>, ms = 2000) =>
  Promise.race([
    q.then(
      () => "answered",
      (err: unknown) => err,
    ),
    new Promise((resolve) => setTimeout(() => resolve("pending"), ms)),
  ]);

describe("a statement on an ended transaction", () => {
  it("is refused when made after the transaction's function returned, and does not run", async () => {
    let handle: postgres.TransactionSql | undefined;
    await sql.begin(async (tx) => {
      handle = tx;
      await tx`insert into ${sql(table)} values (1)`;
    });
    const late = handle!`insert into ${sql(table)} values (2)`;
    expect(await settled(late)).toMatchObject({ code: "TRANSACTION_ENDED" });
    expect(await stored()).toEqual([1]);
  });

  it("is refused when made while the commit is on its way, after awaiting an earlier statement's answer", async () => {
    let late: Promise<unknown> | undefined;
    await sql.begin((tx) => {
      // Not awaited by the function: the commit is sent behind the first insert, before its answer comes back.
      late = (async () => {
        await tx`insert into ${sql(table)} values (3)`;
        return tx`insert into ${sql(table)} values (4)`;
      })();
      late.catch(() => {});
      return Promise.resolve();
    });
    expect(await settled(late!)).toMatchObject({ code: "TRANSACTION_ENDED" });
    expect(await stored()).toEqual([1, 3]);
  });

  it("is refused on a savepoint that was rolled back, while the transaction goes on", async () => {
    let savepointHandle: postgres.TransactionSql | undefined;
    await sql.begin(async (tx) => {
      await tx
        .savepoint(async (sp) => {
          savepointHandle = sp;
          await sp`insert into ${sql(table)} values (5)`;
          throw new Error("roll back to the savepoint");
        })
        .catch(() => {});
      expect(await settled(savepointHandle!`insert into ${sql(table)} values (6)`)).toMatchObject({
        code: "TRANSACTION_ENDED",
      });
      await tx`insert into ${sql(table)} values (7)`;
    });
    expect(await stored()).toEqual([1, 3, 7]);
  });

  it("leaves transactions as they were: statements in order, commit, and rollback on failure", async () => {
    const rows = await sql.begin(async (tx) => {
      await tx`insert into ${sql(table)} values (8)`;
      return tx`select count(*)::int as n from ${sql(table)}`;
    });
    expect(rows[0]!.n).toBe(4);
    await expect(
      sql.begin(async (tx) => {
        await tx`insert into ${sql(table)} values (9)`;
        await tx`insert into ${sql(table)} values (9)`;
      }),
    ).rejects.toMatchObject({ code: "23505" });
    expect(await stored()).toEqual([1, 3, 7, 8]);
  });
});
