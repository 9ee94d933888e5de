import { connect, type Socket } from "node:net";
import { sql as drizzleSql } from "drizzle-orm";
import { drizzle } from "drizzle-orm/postgres-js";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CountedClient, countedClient } from "../src/turn-counter";

/*
 * The driver's transactions and writes as changed (driver/driver.diff): a transaction's `begin` and its first
 * statements leave in one write, a round trip less per transaction, checked on Postgres through a proxy that counts
 * the client's turns; a turn's statements leave in one write up to 64 KiB (upstream: 1 KB), counted on the client's
 * socket.
 */
const PG = new URL(process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres");
let client: CountedClient;
let sql: postgres.Sql;

beforeAll(async () => {
  client = await countedClient(PG);
  sql = client.sql;
  await sql`create temporary table if not exists begin_probe (n int primary key)`;
});

afterAll(async () => {
  await client?.close();
});

const turnsOf = (work: () => Promise<unknown>) => client.turnsOf(work);

describe("postgres.js transactions (patched)", () => {
  it("sends `begin` with the first statements: begin + select, then commit, in two round trips", async () => {
    expect(await turnsOf(() => sql.begin((tx) => tx`select 1 as one`))).toBe(2);
    // Two statements one after the other: one more round trip, not two.
    expect(
      await turnsOf(() =>
        sql.begin(async (tx) => {
          await tx`select 1`;
          await tx`select 2`;
        }),
      ),
    ).toBe(3);
  });

  it("does so under Drizzle's transactions, which the app uses", async () => {
    const db = drizzle(sql);
    const turns = await turnsOf(() =>
      db.transaction(async (tx) => {
        await tx.execute(drizzleSql`select 1`);
        await tx.execute(drizzleSql`select 2`);
      }),
    );
    expect(turns).toBe(3);
  });

  it("still runs the transaction as one: a failed statement rolls back what came before it", async () => {
    await expect(
      sql.begin(async (tx) => {
        await tx`insert into begin_probe values (1)`;
        await tx`insert into begin_probe values (1)`;
      }),
    ).rejects.toMatchObject({ code: "23505" });
    expect(await sql`select count(*)::int as n from begin_probe`).toEqual([{ n: 0 }]);
    // The first statement, sent with `begin`, runs inside the transaction: outside one, each statement would get a
    // transaction id of its own.
    const ids = await sql.begin(async (tx) => {
      const [first] = await tx`select txid_current()::text as id`;
      await tx`insert into begin_probe values (2)`;
      const [last] = await tx`select txid_current()::text as id`;
      return [first!.id, last!.id];
    });
    expect(ids[0]).toBe(ids[1]);
    expect(await sql`select n from begin_probe`).toEqual([{ n: 2 }]);
  });

  it("sends `begin` with the first statements too when it waited for the pool's one connection", async () => {
    let results: unknown[] = [];
    const turns = await turnsOf(async () => {
      results = await Promise.all([
        sql.begin(async (tx) => (await tx`insert into begin_probe values (3) returning n`)[0]),
        sql.begin(async (tx) => (await tx`insert into begin_probe values (4) returning n`)[0]),
      ]);
    });
    expect(results).toEqual([{ n: 3 }, { n: 4 }]);
    // Each: begin + insert, then commit; the second starts when the first's commit is answered.
    expect(turns).toBe(4);
    expect(await sql`select n from begin_probe order by n`).toEqual([{ n: 2 }, { n: 3 }, { n: 4 }]);
  });

  it("passes the transaction's options with `begin`", async () => {
    const level = await sql.begin("isolation level serializable", async (tx) => {
      const [row] = await tx`select current_setting('transaction_isolation') as level`;
      return row!.level;
    });
    expect(level).toBe("serializable");
  });
});

describe("postgres.js writes (patched)", () => {
  /** A client whose socket counts its writes; `socket` hands postgres.js a connected socket. */
  function countingClient() {
    const counter = { writes: 0, bytes: [] as number[] };
    // `socket` is a driver option its types leave out.
    const options = {
      max: 1,
      onnotice: () => {},
      socket: () =>
        new Promise<Socket>((resolve, reject) => {
          const socket = connect(Number(PG.port || 5432), PG.hostname, () => resolve(socket));
          socket.once("error", reject);
          const write = socket.write.bind(socket) as (...a: unknown[]) => boolean;
          socket.write = ((data: Buffer, ...rest: unknown[]) => {
            counter.writes++;
            counter.bytes.push(data.length);
            return write(data, ...rest);
          }) as Socket["write"];
        }),
    };
    const client = postgres(PG.toString(), options as postgres.Options<Record<string, never>>);
    return { client, counter };
  }

  it("sends a pipelined batch over 1 KB in one write: a write is a system call and the server's wake-up", async () => {
    const { client, counter } = countingClient();
    try {
      await client`select 1`;
      const padding = "x".repeat(300);
      const batch = () =>
        client.begin((tx) =>
          Promise.all(
            Array.from({ length: 12 }, (_, i) => tx`select ${i}::int as n, ${padding}::text as pad`),
          ),
        );
      // The first time, the statement is prepared (described, then run): a round trip more.
      await batch();
      const before = counter.writes;
      const rows = await batch();
      expect(rows.map(([row]) => row!.n)).toEqual(Array.from({ length: 12 }, (_, i) => i));
      // `begin` with the twelve statements (over 3.6 KB of parameters), then the `commit`. Unpatched, the batch
      // left in a write each time it passed 1 KB: five writes.
      expect(counter.writes - before).toBe(2);
      expect(Math.max(...counter.bytes.slice(before))).toBeGreaterThan(3600);
    } finally {
      await client.end({ timeout: 1 });
    }
  });

  it("writes at once when a batch reaches 64 KiB, so a large one neither waits nor grows without bound", async () => {
    const { client, counter } = countingClient();
    try {
      await client`select 1`;
      const padding = "y".repeat(20_000);
      await client`select length(${padding}::text) as n`;
      const before = counter.writes;
      const lengths = await Promise.all(
        Array.from({ length: 7 }, () => client`select length(${padding}::text) as n`),
      );
      expect(lengths.map(([row]) => row!.n)).toEqual(Array(7).fill(20_000));
      // 140 KB of statements: the first write as the fourth passes 64 KiB, the last three at the turn's end.
      const sizes = counter.bytes.slice(before);
      expect(sizes.length).toBe(2);
      expect(sizes[0]).toBeGreaterThanOrEqual(65_536);
      expect(sizes[0]! + sizes[1]!).toBeGreaterThan(140_000);
    } finally {
      await client.end({ timeout: 1 });
    }
  });
});
