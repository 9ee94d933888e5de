/**
 * OpenTelemetry traces, on only when `OTEL_EXPORTER_OTLP_ENDPOINT` is set. The SDK and the exporter are loaded
 * with a dynamic import then, so a process without the setting loads neither and every hook below stays a
 * boolean test. Spans the app makes itself: the HTTP server span (named by route template), Postgres statements,
 * Redis round trips; core makes the webhook and autouser run spans through `@opentelemetry/api`, the AI SDK the
 * model call spans (GenAI conventions).
 */
import type { IncomingMessage } from "node:http";
import {
  type Context,
  context,
  propagation,
  type Span,
  SpanKind,
  SpanStatusCode,
  type Tracer,
  trace,
} from "@opentelemetry/api";
import type { Env } from "../config/env";
import { describeStatement, safeErrorMessage } from "./safe-error";

export { describeStatement };

let tracer: Tracer | null = null;
let shutdown: (() => Promise<void>) | null = null;

/** Whether this process exports traces. */
export function tracingOn(): boolean {
  return tracer !== null;
}

/**
 * Starts the SDK with the OTLP/HTTP (JSON) exporter, before the app opens its database or serves anything.
 * The exporter reads the standard `OTEL_EXPORTER_OTLP_*` settings itself (endpoint, headers, timeout); the
 * batch processor `OTEL_BSP_*`. No automatic instrumentation is loaded: the spans are the app's own, and no OTel
 * metrics or log exporters are set up (metrics are Prometheus's, logs are stdout's).
 */
export async function startTracing(
  env: Pick<Env, "otelEndpoint" | "otelCaptureContent">,
  serviceName: string,
): Promise<boolean> {
  if (!env.otelEndpoint || tracer) return tracer !== null;
  const [{ NodeSDK }, { OTLPTraceExporter }, { setModelTelemetry }] = await Promise.all([
    import("@opentelemetry/sdk-node"),
    import("@opentelemetry/exporter-trace-otlp-http"),
    import("@rubricon/agents"),
  ]);
  const sdk = new NodeSDK({
    serviceName,
    traceExporter: new OTLPTraceExporter(),
    metricReaders: [],
    logRecordProcessors: [],
    instrumentations: [],
  });
  sdk.start();
  tracer = trace.getTracer("rubricon");
  shutdown = () => sdk.shutdown();
  setModelTelemetry({ enabled: true, captureContent: env.otelCaptureContent });
  return true;
}

/** Sends the spans still buffered; a stopping process calls it last. */
export async function stopTracing(): Promise<void> {
  const stop = shutdown;
  shutdown = null;
  tracer = null;
  await stop?.().catch(() => {});
}

/**
 * The server span of a request, child of an incoming W3C `traceparent` when one came. Named `METHOD` until the
 * route is known; `nameServerSpan` renames it to `METHOD /route/{template}` when the response is done.
 */
export function startServerSpan(req: IncomingMessage): { span: Span; ctx: Context } | null {
  if (!tracer) return null;
  const parent = propagation.extract(context.active(), req.headers);
  const method = req.method ?? "GET";
  const span = tracer.startSpan(
    method,
    {
      kind: SpanKind.SERVER,
      attributes: { "http.request.method": method },
    },
    parent,
  );
  return { span, ctx: trace.setSpan(parent, span) };
}

export function endServerSpan(
  span: Span,
  method: string,
  route: string,
  status: number,
  aborted: boolean,
): void {
  span.updateName(`${method} ${route}`);
  span.setAttribute("http.route", route);
  span.setAttribute("http.response.status_code", status);
  if (status >= 500 || aborted) span.setStatus({ code: SpanStatusCode.ERROR });
  span.end();
}

/** A client span around one Postgres statement (the current span's child). */
export function startDbSpan(text: string): Span | null {
  // Only inside work (a request, a run, a delivery): a worker's polls, most of them empty, would each be a trace.
  if (!tracer || !trace.getSpan(context.active())) return null;
  const { operation, table } = describeStatement(text);
  return tracer.startSpan(table ? `${operation} ${table}` : operation, {
    kind: SpanKind.CLIENT,
    attributes: {
      "db.system": "postgresql",
      "db.system.name": "postgresql",
      "db.operation": operation,
      "db.operation.name": operation,
      ...(table ? { "db.collection.name": table } : {}),
    },
  });
}

/** A client span around one Redis round trip. */
export function startRedisSpan(command: string): Span | null {
  if (!tracer || !trace.getSpan(context.active())) return null;
  return tracer.startSpan(`redis ${command}`, {
    kind: SpanKind.CLIENT,
    attributes: { "db.system": "redis", "db.system.name": "redis", "db.operation.name": command },
  });
}

export function endSpan(span: Span, error?: unknown): void {
  if (error !== undefined) {
    span.setStatus({
      code: SpanStatusCode.ERROR,
      message: error instanceof Error ? safeErrorMessage(error).slice(0, 200) : undefined,
    });
  }
  span.end();
}

/** The ids of the span current in this async context, for log lines. */
export function currentTraceIds(): { traceId: string; spanId: string } | undefined {
  const span = trace.getActiveSpan();
  if (!span) return undefined;
  const { traceId, spanId } = span.spanContext();
  return { traceId, spanId };
}
