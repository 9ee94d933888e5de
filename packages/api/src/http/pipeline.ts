import type { IncomingMessage, ServerResponse } from "node:http";
import { API_VERSION } from "@rubricon/contracts";
import { ApiError } from "@rubricon/core";
import { log } from "../observability/logger";
import { type ObservedResponse, REQUEST_CONTEXT } from "../observability/request-context";
import { safeErrorMessage } from "../observability/safe-error";
import type { ApiRequest } from "../request/api-request";
import type { AppServices, Principal, RequestContext } from "../request/context";
import type { EntryPoint, Exchange } from "../request/exchange";
import type { Reply } from "../request/reply";
import { discardNodeBody, type ForwardedFor, fromNodeRequest, fromWebRequest } from "./api-message";
import { clientIp } from "./client-ip";
import { toApiError, toErrorEnvelope } from "./error-envelope";
import { resolvePrincipal } from "./principal";
import { jsonReply, toWebResponse, writeNodeReply, writeNodeReplyThenClose } from "./reply";
import { uuidv7 } from "./request-id";

/** Request bodies past this are refused with 413 unless a route sets its own cap. */
export const DEFAULT_BODY_LIMIT = 1024 * 1024;

const utf8 = new TextDecoder("utf-8", { fatal: true });
const JSON_TYPE = /^application\/([\w.+-]*\+)?json\b/i;

/** Deeper than any input of the API needs; far below the depth where a recursive walk of the value overflows. */
export const MAX_JSON_DEPTH = 64;

/**
 * Whether JSON text nests arrays and objects deeper than `MAX_JSON_DEPTH`. Brackets are counted first with native
 * `indexOf` (a body with few of them cannot be deep, which is every ordinary body); only then is the text walked,
 * skipping strings.
 */
export function jsonTooDeep(text: string): boolean {
  let brackets = 0;
  for (const open of ["[", "{"]) {
    for (let i = text.indexOf(open); i !== -1; i = text.indexOf(open, i + 1)) {
      if (++brackets > MAX_JSON_DEPTH) break;
    }
  }
  if (brackets <= MAX_JSON_DEPTH) return false;
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // backslash: the next character is escaped
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > MAX_JSON_DEPTH) return true;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return false;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

function createExchange(services: AppServices, req: ApiRequest): Exchange {
  const url = new URL(req.url);
  const requestId = uuidv7(services.clock.now().getTime());
  const headers: Record<string, string> = {
    "X-Request-Id": requestId,
    "Service-Version": API_VERSION,
    "X-Content-Type-Options": "nosniff",
  };
  const ctx: RequestContext = {
    services,
    principal: null,
    clientIp: clientIp(req.headers, services.env.trustedProxyCount),
    requestId,
    route: undefined,
    idempotencyKey: null,
    response: { headers },
  };
  // The server's request log and metrics read the context once the response is done.
  if (req.node) (req.node.res as ObservedResponse)[REQUEST_CONTEXT] = ctx;
  let principal: Promise<Principal | null> | undefined;
  const ex: Exchange = {
    req,
    url,
    requestId,
    headers,
    cookies: [],
    ctx,
    principal() {
      principal ??= resolvePrincipal(req, services, ctx.clientIp).then((p) => {
        ctx.principal = p;
        return p;
      });
      return principal;
    },
    async readJson(limit = DEFAULT_BODY_LIMIT) {
      const bytes = await req.readBody(limit);
      if (bytes.length === 0) return {};
      const type = req.headers.get("content-type") ?? "";
      if (type && !JSON_TYPE.test(type)) {
        throw new ApiError(
          "unsupported_media_type",
          "Send the request body as JSON with `Content-Type: application/json`.",
        );
      }
      let text: string;
      try {
        text = utf8.decode(bytes);
      } catch {
        throw new ApiError("invalid_json", "The request body is not valid UTF-8.");
      }
      if (text.trim() === "") return {};
      if (jsonTooDeep(text)) {
        throw new ApiError(
          "invalid_json",
          `The request body nests arrays and objects more than ${MAX_JSON_DEPTH} levels deep.`,
        );
      }
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        throw new ApiError("invalid_json", "The request body is not valid JSON.");
      }
      if (!isObject(parsed)) throw new ApiError("invalid_json", "The request body must be a JSON object.");
      return parsed;
    },
    failure(err, input) {
      const { error, unexpected } = toApiError(err, input);
      ctx.errorCode = error.code;
      // An outage is not a bug, but the operator needs the cause: the statement's name and code, never its values.
      if (error.code === "database_unavailable")
        log().warn(
          { requestId, method: req.method, route: ctx.template ?? ctx.entry, err },
          `${req.method} ${ctx.template ?? ctx.entry ?? "request"}: ${safeErrorMessage(err)}`,
        );
      if (unexpected)
        log().error(
          { requestId, method: req.method, route: ctx.template ?? ctx.entry, err },
          `${req.method} ${ctx.template ?? ctx.entry ?? "request"} failed: ${safeErrorMessage(err)}`,
        );
      if (error.headers) Object.assign(headers, error.headers);
      return { status: error.status, body: toErrorEnvelope(error, requestId, services.env.baseUrl) };
    },
  };
  return ex;
}

export interface Pipeline {
  /** Whether a path belongs to one of the pipeline's entry points. */
  owns(pathname: string): boolean;
  handle(req: ApiRequest): Promise<Reply>;
  /** From node:http (the production server, tests, the benchmark). */
  handleNode(req: IncomingMessage, res: ServerResponse, forwardedFor: ForwardedFor): void;
  /** From a Web `Request` (the Next.js route handlers of `next dev`). */
  handleWeb(req: Request): Promise<Response>;
}

/**
 * Every HTTP entry point of the app (`/api/v1`, `/api/trpc`, `/api/auth`, `/api/share`, `/api/oauth`,
 * `/.well-known`, `/mcp`) in one wrapper that owns the request id, `Service-Version`, body caps and JSON parsing,
 * principal resolution, the error envelope and response writing (whole bodies, redirects and event streams),
 * whichever server the request came through. The OAuth endpoints answer OAuth error bodies (RFC 6749) instead.
 */
export function createPipeline(services: AppServices, entries: EntryPoint[]): Pipeline {
  const entryOf = (pathname: string) =>
    entries.find((e) => pathname === e.prefix || pathname.startsWith(`${e.prefix}/`));

  const handle = async (req: ApiRequest): Promise<Reply> => {
    let ex: Exchange | undefined;
    try {
      ex = createExchange(services, req);
      const entry = entryOf(ex.url.pathname);
      if (!entry)
        throw new ApiError("route_not_found", `Unrecognized request URL (${req.method} ${ex.url.pathname}).`);
      ex.ctx.entry = entry.prefix;
      return await entry.handle(ex);
    } catch (err) {
      // A URL too malformed to parse fails before the exchange exists.
      ex ??= createExchange(services, { ...req, url: "http://invalid/" });
      const { status, body } = ex.failure(err);
      return jsonReply(ex, status, body);
    }
  };

  return {
    owns: (pathname) => entryOf(pathname) !== undefined,
    handle,
    handleNode(req, res, forwardedFor) {
      handle(fromNodeRequest(req, res, forwardedFor))
        .then(async (reply) => {
          if (reply.written || req.complete) return writeNodeReply(res, reply);
          // Answered before the body was read (refused early): the client gets to finish sending, then the answer.
          if (await discardNodeBody(req)) writeNodeReply(res, reply);
          else writeNodeReplyThenClose(res, reply);
        })
        .catch((err: unknown) => {
          log().error(
            { err },
            `writing a response failed: ${err instanceof Error ? err.message : String(err)}`,
          );
          if (!res.headersSent) res.statusCode = 500;
          res.end();
        });
    },
    handleWeb: (req) => handle(fromWebRequest(req)).then(toWebResponse),
  };
}
