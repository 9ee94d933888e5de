/**
 * One histogram observation and one log line per request, when its response is done. Labels are route templates
 * (`/evaluations/{id}`), entry prefixes (`/api/auth`) or `web` for the dashboard: never a raw path, id or token.
 */
import type { IncomingMessage } from "node:http";
import { requestLog } from "./logger";
import { httpDuration, httpErrors, statusClass } from "./metrics";
import { type ObservedResponse, REQUEST_CONTEXT, REQUEST_SPAN, REQUEST_START } from "./request-context";
import { endServerSpan } from "./tracing";

/** Called as the request arrives. */
export function markStart(res: ObservedResponse): void {
  res[REQUEST_START] = performance.now();
}

/** The trace id of a W3C `traceparent` header (`00-<32 hex>-<16 hex>-<2 hex>`), when one came in. */
function traceIdOf(req: IncomingMessage): string | undefined {
  const header = req.headers.traceparent;
  return typeof header === "string" && header.length >= 55 ? header.slice(3, 35) : undefined;
}

/** Called when the response is done (finished or cut by the client). */
export function observeResponse(req: IncomingMessage, res: ObservedResponse, fallbackRoute: string): void {
  const started = res[REQUEST_START];
  if (started === undefined) return;
  const ms = performance.now() - started;
  const ctx = res[REQUEST_CONTEXT];
  const route = ctx?.template ?? ctx?.entry ?? fallbackRoute;
  const method = req.method ?? "GET";
  const status = res.statusCode;
  httpDuration.observe({ method, route, status_class: statusClass(status) }, ms / 1000);
  if (ctx?.errorCode) httpErrors.inc({ code: ctx.errorCode });
  const span = res[REQUEST_SPAN];
  if (span) {
    // REST templates are relative to the API's prefix (the metrics label); the span names the whole path.
    const template = ctx?.template;
    const full = template && !template.startsWith("/api/") ? `/api/v1${template}` : route;
    endServerSpan(span, method, full, status, !res.writableFinished);
  }
  const logger = requestLog();
  if (!logger.isLevelEnabled("info")) return;
  const principal = ctx?.principal;
  logger.info(
    {
      // Dashboard pages have no API context: their id is the one the server put on the response.
      requestId: ctx?.requestId ?? (res.getHeader("x-request-id") as string | undefined),
      traceId: span ? span.spanContext().traceId : traceIdOf(req),
      spanId: span?.spanContext().spanId,
      method,
      route,
      status,
      ms: Math.round(ms * 10) / 10,
      principal: principal?.kind,
      teamId: ctx?.teamId ?? (principal && "teamId" in principal ? principal.teamId : undefined),
      errorCode: ctx?.errorCode,
      aborted: res.writableFinished ? undefined : true,
    },
    "request",
  );
}
