import type { ServerResponse } from "node:http";
import type { Span } from "@opentelemetry/api";
import type { RequestContext } from "../request/context";

/** Where the pipeline leaves a request's context on its node response, for the request log and metrics. */
export const REQUEST_CONTEXT = Symbol.for("rubricon.requestContext");
export const REQUEST_START = Symbol.for("rubricon.requestStart");
export const REQUEST_SPAN = Symbol.for("rubricon.requestSpan");

export type ObservedResponse = ServerResponse & {
  [REQUEST_CONTEXT]?: RequestContext;
  [REQUEST_START]?: number;
  /** The server span, when traces are on. */
  [REQUEST_SPAN]?: Span;
};
