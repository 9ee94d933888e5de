import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { connect, createServer, type Server, type Socket } from "node:net";
import { dirname, join } from "node:path";
import { sql as drizzleSql } from "drizzle-orm";
import { drizzle } from "drizzle-orm/postgres-js";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

/*
 * postgres.js is patched (patches/postgres@3.4.9.patch) so a transaction's `begin` and its first statements leave in
 * one write: a transaction costs one round trip less. Checked on Postgres through a proxy that counts the client's
 * turns (data from the client after an answer from the server): each turn is one round trip.
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

beforeAll(async () => {
  proxy = new TurnCounter();
  const port = await proxy.listen();
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
