import type { ServerResponse } from "node:http";
import type { RequestContext } from "../trpc/context";

/** Where the pipeline leaves a request's context on its node response, for the request log and metrics. */
export const REQUEST_CONTEXT = Symbol.for("rubricon.requestContext");
export const REQUEST_START = Symbol.for("rubricon.requestStart");

export type ObservedResponse = ServerResponse & {
  [REQUEST_CONTEXT]?: RequestContext;
  [REQUEST_START]?: number;
};
