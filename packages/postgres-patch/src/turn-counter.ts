import { connect, createServer, type Server, type Socket } from "node:net";
import postgres from "postgres";

/**
 * A TCP proxy to Postgres that counts the client's turns: data from the client after an answer from the server.
 * Each turn is one round trip, which is what the driver's transaction changes save (tests only).
 */
class TurnCounter {
  turns = 0;
  private serverSpoke = true;
  private readonly server: Server;
  private readonly sockets = new Set<Socket>();

  constructor(target: URL) {
    this.server = createServer((client) => {
      const upstream = connect(Number(target.port || 5432), target.hostname);
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

  /** Listens on a free loopback port; answers the port. */
  async listen(): Promise<number> {
    await new Promise<void>((r) => this.server.listen(0, "127.0.0.1", r));
    return (this.server.address() as { port: number }).port;
  }

  close(): void {
    for (const s of this.sockets) s.destroy();
    this.server.close();
  }
}

/** A one-connection postgres.js client through a `TurnCounter`, and the round trips a piece of work takes on it. */
export interface CountedClient {
  sql: postgres.Sql;
  /** The proxy's port on 127.0.0.1, for other clients whose turns should count too. */
  port: number;
  turnsOf(work: () => Promise<unknown>): Promise<number>;
  close(): Promise<void>;
}

export async function countedClient(target: URL): Promise<CountedClient> {
  const proxy = new TurnCounter(target);
  const port = await proxy.listen();
  const url = new URL(target);
  url.hostname = "127.0.0.1";
  url.port = String(port);
  const sql = postgres(url.toString(), { max: 1, onnotice: () => {} });
  await sql`select 1`;
  return {
    sql,
    port,
    async turnsOf(work) {
      // After the connection is up: only the work's own round trips count.
      await sql`select 1`;
      const before = proxy.turns;
      await work();
      return proxy.turns - before;
    },
    async close() {
      await sql.end({ timeout: 1 });
      proxy.close();
    },
  };
}
