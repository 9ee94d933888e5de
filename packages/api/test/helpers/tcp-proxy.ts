/**
 * A loopback TCP proxy in front of Postgres or Redis that a test can turn into the failures an operator meets:
 * `pause` (connections stay open and nothing more crosses, as with a hung server or a stalled network), `cut`
 * (every connection is dropped and new ones are refused) and `restore`.
 */
import { connect, createServer, type Server, type Socket } from "node:net";

export class TcpProxy {
  private mode: "forward" | "paused" | "cut" = "forward";
  private readonly pairs = new Set<[Socket, Socket]>();
  private readonly held = new Set<Socket>();
  private server: Server;
  port = 0;

  constructor(
    private readonly targetHost: string,
    private readonly targetPort: number,
  ) {
    this.server = this.makeServer();
  }

  /** A proxy to the host and port of `url` (postgres:// or redis://). */
  static to(url: string): TcpProxy {
    const u = new URL(url);
    const fallback = u.protocol.startsWith("redis") ? 6379 : 5432;
    return new TcpProxy(u.hostname, Number(u.port || fallback));
  }

  private makeServer(): Server {
    return createServer((client) => {
      client.on("error", () => {});
      if (this.mode !== "forward") {
        // Accepted and never answered.
        this.held.add(client);
        client.on("close", () => this.held.delete(client));
        return;
      }
      const upstream = connect(this.targetPort, this.targetHost);
      upstream.on("error", () => client.destroy());
      client.on("error", () => upstream.destroy());
      const pair: [Socket, Socket] = [client, upstream];
      this.pairs.add(pair);
      const drop = () => {
        this.pairs.delete(pair);
        client.destroy();
        upstream.destroy();
      };
      client.on("close", drop);
      upstream.on("close", drop);
      client.on("data", (d) => {
        if (this.mode === "forward") upstream.write(d);
      });
      upstream.on("data", (d) => {
        if (this.mode === "forward") client.write(d);
      });
    });
  }

  /** Starts listening (on the same port again after a `cut`); answers the port. */
  async listen(): Promise<number> {
    await new Promise<void>((resolve, reject) => {
      this.server.once("error", reject);
      this.server.listen(this.port, "127.0.0.1", () => resolve());
    });
    this.port = (this.server.address() as { port: number }).port;
    return this.port;
  }

  /** The given URL with its host and port replaced by this proxy's. */
  url(original: string): string {
    const u = new URL(original);
    u.hostname = "127.0.0.1";
    u.port = String(this.port);
    return u.toString();
  }

  /** Open connections stay open and silent (what was sent is lost); new ones are accepted and never answered. */
  pause(): void {
    this.mode = "paused";
  }

  /** Drops every connection and refuses new ones. */
  async cut(): Promise<void> {
    this.mode = "cut";
    await new Promise<void>((resolve) => {
      this.server.close(() => resolve());
      this.dropAll();
    });
    this.server = this.makeServer();
  }

  /** Forwards again; connections held while paused are dropped, so their clients reconnect. */
  async restore(): Promise<void> {
    const wasCut = this.mode === "cut";
    this.mode = "forward";
    this.dropAll();
    if (wasCut) await this.listen();
  }

  private dropAll(): void {
    for (const [a, b] of this.pairs) {
      a.destroy();
      b.destroy();
    }
    this.pairs.clear();
    for (const s of this.held) s.destroy();
    this.held.clear();
  }

  async close(): Promise<void> {
    this.dropAll();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/** A TCP server that accepts connections and never answers a byte. */
export async function silentServer(): Promise<{ port: number; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server = createServer((s) => {
    sockets.add(s);
    s.on("error", () => {});
    s.on("close", () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return {
    port: (server.address() as { port: number }).port,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
