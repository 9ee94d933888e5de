import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from "node:http";
import { Agent as HttpsAgent, request as httpsRequest } from "node:https";
import { isIP } from "node:net";
import { isPublicAddress } from "@rubricon/agents/network";
import { guardedLookup, hostOf, type Resolver } from "../../kernel";

/** How much of a receiver's answer is kept in the delivery log. */
export const RESPONSE_BODY_LIMIT = 1024;

export interface SendOutcome {
  /** True for a 2xx answer; anything else (3xx included) is a failure to retry. */
  ok: boolean;
  statusCode: number | null;
  responseBody: string | null;
  error: string | null;
  durationMs: number;
}

export interface SenderOptions {
  timeoutMs: number;
  /** Local development and tests: deliver to loopback and private addresses, and over http. */
  allowPrivate: boolean;
  resolve?: Resolver;
}

/**
 * POSTs webhook bodies over keep-alive connections. Redirects are never followed (a 3xx is an answer, and a
 * failed one), the whole exchange has one deadline, and every address a host resolves to is checked again at
 * connect time.
 */
export class WebhookSender {
  private readonly http = new HttpAgent({ keepAlive: true, maxSockets: 64 });
  private readonly https = new HttpsAgent({ keepAlive: true, maxSockets: 64 });
  private readonly lookup: ReturnType<typeof guardedLookup> | undefined;

  constructor(private readonly opts: SenderOptions) {
    this.lookup = opts.allowPrivate ? undefined : guardedLookup(opts.resolve);
  }

  close(): void {
    this.http.destroy();
    this.https.destroy();
  }

  post(
    target: string,
    body: string,
    headers: Record<string, string>,
    signal?: AbortSignal,
  ): Promise<SendOutcome> {
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    const failure = (
      error: string,
      statusCode: number | null = null,
      responseBody: string | null = null,
    ) => ({
      ok: false,
      statusCode,
      responseBody,
      error,
      durationMs: elapsed(),
    });
    let url: URL;
    try {
      url = new URL(target);
    } catch {
      return Promise.resolve(failure("the endpoint URL is not valid"));
    }
    const host = hostOf(url);
    if (!this.opts.allowPrivate && isIP(host) && !isPublicAddress(host)) {
      return Promise.resolve(failure(`${host} is not a public address`));
    }
    if (url.protocol !== "https:" && !(this.opts.allowPrivate && url.protocol === "http:")) {
      return Promise.resolve(
        failure(`the endpoint URL must use https, not ${url.protocol.replace(/:$/, "")}`),
      );
    }

    return new Promise<SendOutcome>((resolve) => {
      let settled = false;
      const finish = (outcome: SendOutcome) => {
        if (settled) return;
        settled = true;
        clearTimeout(deadline);
        signal?.removeEventListener("abort", onAbort);
        resolve(outcome);
      };
      const send = url.protocol === "https:" ? httpsRequest : httpRequest;
      const req = send(url, {
        method: "POST",
        agent: url.protocol === "https:" ? this.https : this.http,
        headers: { ...headers, "Content-Length": String(Buffer.byteLength(body)) },
        ...(this.lookup ? { lookup: this.lookup } : {}),
      });
      const deadline = setTimeout(() => {
        finish(failure(`timed out after ${formatSeconds(this.opts.timeoutMs)}`));
        req.destroy();
      }, this.opts.timeoutMs);
      const onAbort = () => {
        finish(failure("aborted"));
        req.destroy();
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      req.on("error", (err: NodeJS.ErrnoException) => finish(failure(describeError(err))));
      req.on("response", (res: IncomingMessage) => {
        const status = res.statusCode ?? 0;
        const chunks: Buffer[] = [];
        let kept = 0;
        const done = () => {
          const text = Buffer.concat(chunks).subarray(0, RESPONSE_BODY_LIMIT).toString("utf8");
          const ok = status >= 200 && status < 300;
          finish({
            ok,
            statusCode: status,
            responseBody: text === "" ? null : text,
            error: ok ? null : status >= 300 && status < 400 ? "redirects are not followed" : null,
            durationMs: elapsed(),
          });
        };
        res.on("data", (chunk: Buffer) => {
          if (kept >= RESPONSE_BODY_LIMIT) return;
          chunks.push(chunk);
          kept += chunk.length;
          // Enough for the log: answer now and let the rest drain (or the deadline cut it off).
          if (kept >= RESPONSE_BODY_LIMIT) done();
        });
        res.on("end", done);
        res.on("error", () => done());
      });
      req.end(body);
    });
  }
}

function formatSeconds(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${(ms / 1000).toFixed(1)} s`;
}

function describeError(err: NodeJS.ErrnoException): string {
  switch (err.code) {
    case "ECONNREFUSED":
      return "connection refused";
    case "ECONNRESET":
      return "connection reset by the receiver";
    case "ENOTFOUND":
    case "EAI_AGAIN":
      return "host not found";
    case "EBLOCKEDADDRESS":
      return err.message;
    default:
      return err.message || err.code || "request failed";
  }
}
