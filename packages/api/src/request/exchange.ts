import type { ApiRequest } from "./api-request";
import type { Principal, RequestContext } from "./context";
import type { Reply } from "./reply";

/** One request on its way through the pipeline: what every entry point reads and writes. */
export interface Exchange {
  readonly req: ApiRequest;
  readonly url: URL;
  readonly requestId: string;
  /** Response headers, merged into whatever the request answers, error or not. */
  readonly headers: Record<string, string>;
  readonly cookies: string[];
  /** The tRPC context of this request; `principal` is set once `principal()` has resolved it. */
  readonly ctx: RequestContext;
  /** The caller, resolved once (session cookie, API key, OAuth token, plugin token); null when none is sent. */
  principal(): Promise<Principal | null>;
  /** The JSON object body (`{}` when empty), refused past `limit` bytes. */
  readJson(limit?: number): Promise<Record<string, unknown>>;
  /** An error as the status and envelope it answers; unexpected ones are logged with the request id. */
  failure(err: unknown, input?: unknown): { status: number; body: unknown };
}

export interface EntryPoint {
  /** Path prefix the entry point owns, e.g. `/api/v1`. */
  prefix: string;
  handle(ex: Exchange): Promise<Reply>;
}
