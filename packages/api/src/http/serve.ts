import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { Server as NetServer } from "node:net";
import { endOpenStreams } from "./reply";

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

export interface ServeOptions {
  /** How long a stop waits for requests in flight before it closes the connections left. */
  shutdownTimeoutMs: number;
  /** Where shutdown steps are reported (one line each). */
  log: (message: string, fields?: Record<string, unknown>) => void;
  /** The reconnect delay sent to event streams ended by a stop. */
  streamRetryMs?: number;
  /** Called as each request arrives and once its response is done (metrics, the request log). */
  onStart?: (req: IncomingMessage, res: ServerResponse) => void;
  onDone?: (req: IncomingMessage, res: ServerResponse) => void;
  /**
   * Answers a request still unanswered when the stop's timeout comes (stuck on a hung dependency), before its
   * connection is closed: the client then gets a status it can retry on, not a reset.
   */
  answerStuck?: (req: IncomingMessage, res: ServerResponse) => void;
}

export interface Served {
  server: Server;
  /** Requests being answered now (event streams included). */
  inFlight(): number;
  /** Whether a stop has begun (readiness answers 503 from then on). */
  draining(): boolean;
  /**
   * Stops gracefully: no new connections; requests that arrive on open keep-alive connections are answered with
   * `Connection: close`; requests in flight finish; event streams end with a `retry` hint. Resolves true once every
   * connection closed, false when the timeout cut the ones left.
   */
  stop(): Promise<boolean>;
}

/** Connections idle this long with nothing in flight are closed: a client would have reused them by now. */
const QUIET_MS = 500;
const POLL_MS = 100;

/**
 * A node:http server that can drain. Node's own `server.close()` closes idle keep-alive connections at once,
 * which races a client that is just sending its next request on one (that request is lost mid-flight); so a stop
 * only closes the listening socket and lets each connection end after its next answer.
 */
export function createDrainableServer(handler: Handler, opts: ServeOptions): Served {
  let inFlight = 0;
  let draining = false;
  const open = new Map<ServerResponse, IncomingMessage>();
  let stopping: Promise<boolean> | undefined;
  const { onStart, onDone } = opts;
  const server = createServer((req, res) => {
    inFlight++;
    open.set(res, req);
    onStart?.(req, res);
    res.once("close", () => {
      inFlight--;
      open.delete(res);
      onDone?.(req, res);
    });
    if (draining) res.setHeader("Connection", "close");
    handler(req, res);
  });

  const stop = () => {
    stopping ??= new Promise<boolean>((resolve) => {
      draining = true;
      const startedAt = Date.now();
      opts.log("shutdown: no new connections; finishing requests in flight", {
        inFlight,
        timeoutMs: opts.shutdownTimeoutMs,
      });
      let settled = false;
      const finish = (clean: boolean) => {
        if (settled) return;
        settled = true;
        clearInterval(poll);
        clearTimeout(deadline);
        opts.log(clean ? "shutdown: drained" : "shutdown: timed out; closed the connections left", {
          ms: Date.now() - startedAt,
          inFlight,
        });
        resolve(clean);
      };
      // Skips http.Server's close, which would close idle keep-alive connections under a client's feet.
      NetServer.prototype.close.call(server, () => finish(true));
      const streams = endOpenStreams(opts.streamRetryMs ?? 1_000);
      if (streams > 0) opts.log("shutdown: ended event streams with a retry hint", { streams });
      let quietSince = inFlight === 0 ? Date.now() : 0;
      const poll = setInterval(() => {
        if (inFlight > 0) quietSince = 0;
        else if (quietSince === 0) quietSince = Date.now();
        else if (Date.now() - quietSince >= QUIET_MS) server.closeIdleConnections();
      }, POLL_MS);
      const deadline = setTimeout(() => {
        let answered = 0;
        for (const [res, req] of open) {
          if (res.headersSent || !opts.answerStuck) continue;
          res.setHeader("Connection", "close");
          opts.answerStuck(req, res);
          answered++;
        }
        if (answered > 0) opts.log("shutdown: answered 503 to requests still waiting", { answered });
        // The answers leave with the next write; the connections close once they are flushed.
        setTimeout(
          () => {
            server.closeAllConnections();
            finish(false);
          },
          answered > 0 ? 200 : 0,
        );
      }, opts.shutdownTimeoutMs);
    });
    return stopping;
  };

  return { server, inFlight: () => inFlight, draining: () => draining, stop };
}

/**
 * Stops `served` on SIGTERM or SIGINT and exits: 0 when drained, 1 when the timeout cut connections. A second
 * signal (process managers often send one) does not cut the drain short.
 */
export function stopOnSignals(
  served: Pick<Served, "stop">,
  log: ServeOptions["log"],
  cleanup: () => Promise<void> = async () => {},
): void {
  let stopping = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (stopping) {
      log(`shutdown: ${signal} received again; still draining`);
      return;
    }
    stopping = true;
    log(`shutdown: ${signal} received`);
    void served
      .stop()
      .then(async (clean) => {
        await cleanup().catch((err: unknown) => log(`shutdown: cleanup failed: ${(err as Error).message}`));
        log("shutdown: stopped");
        process.exit(clean ? 0 : 1);
      })
      .catch(() => process.exit(1));
  };
  process.on("SIGTERM", onSignal);
  process.on("SIGINT", onSignal);
}
