import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { connect, createServer, type Server, type Socket } from "node:net";
import { dirname, join } from "node:path";
import { sql as drizzleSql } from "drizzle-orm";
import { drizzle } from "drizzle-orm/postgres-js";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDatabase, type DbOrTx } from "./client";
import { commitWithLast, violatedUniqueIndex } from "./transaction";

/*
 * postgres.js is patched (patches/postgres@3.4.9.patch) so a transaction's `begin` and its first statements leave in
 * one write: a transaction costs one round trip less. Checked on Postgres through a proxy that counts the client's
 * turns (data from the client after an answer from the server): each turn is one round trip. The patch also sends
 * a turn's statements in one write up to 64 KiB (not 1 KB), counted on the client's socket.
 */
const require = createRequire(import.meta.url);
const PG = new URL(process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres");

class TurnCounter {
  turns = 0;
  private serverSpoke = true;
  readonly server: Server;
  private readonly sockets = new Set<Socket>();

  constructor() {
    this.server = createServer((client) => {
      const upstream = connect(Number(PG.port || 5432), PG.hostname);
      for (const s of [client, upstream]) {
        this.sockets.add(s);
        s.on("error", () => {});
      }
      client.on("data", (chunk) => {
        if (this.serverSpoke) this.turns++;
        this.serverSpoke = false;
        upstream.write(chunk);
      });
      upstream.on("data", (chunk) => {
        this.serverSpoke = true;
        client.write(chunk);
      });
      client.on("close", () => upstream.destroy());
      upstream.on("close", () => client.destroy());
    });
  }

  async listen(): Promise<number> {
    await new Promise<void>((r) => this.server.listen(0, "127.0.0.1", r));
    return (this.server.address() as { port: number }).port;
  }

  close(): void {
    for (const s of this.sockets) s.destroy();
    this.server.close();
  }
}

let proxy: TurnCounter;
let sql: postgres.Sql;
let proxyPort = 0;

beforeAll(async () => {
  proxy = new TurnCounter();
  const port = await proxy.listen();
  proxyPort = port;
  const url = new URL(PG);
  url.hostname = "127.0.0.1";
  url.port = String(port);
  sql = postgres(url.toString(), { max: 1, onnotice: () => {} });
  await sql`select 1`;
  await sql`create temporary table if not exists begin_probe (n int primary key)`;
});

afterAll(async () => {
  await sql?.end({ timeout: 1 });
  proxy?.close();
});

/** Round trips a piece of work takes, after the connection is up. */
async function turnsOf(work: () => Promise<unknown>): Promise<number> {
  await sql`select 1`;
  const before = proxy.turns;
  await work();
  return proxy.turns - before;
}

describe("postgres.js transactions (patched)", () => {
  it("is the version the patch was made for", () => {
    const manifest = join(dirname(require.resolve("postgres")), "../../package.json");
    expect((JSON.parse(readFileSync(manifest, "utf8")) as { version: string }).version).toBe("3.4.9");
  });

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
      url: `postgres://postgres@127.0.0.1:${proxyPort}/${PG.pathname.slice(1)}`,
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
    const turns = await turnsOf(async () => {
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
