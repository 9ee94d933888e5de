import { type AnyProcedure, type AnyRouter, getTRPCErrorFromUnknown, TRPCError } from "@trpc/server";

/**
 * The one place that knows tRPC's private shapes: procedure definitions (`_def`) and the middleware protocol. The
 * REST runner calls a procedure's middleware chain through `callProcedure` below, the validators are swapped for
 * synchronous ones, the route table reads each procedure's meta and the OpenAPI document its input schemas: all of
 * that goes through here. The shapes below are tRPC 11's; `trpc-internals.test.ts` pins the installed version,
 * checks each field and holds `callProcedure` to tRPC's own caller, so an upgrade fails there, with a message that
 * names this file, before any route misbehaves.
 */
export const PINNED_TRPC_VERSION = "11.22.1";

export type MiddlewareResult = { ok: true; data: unknown } | { ok: false; error?: unknown };

/** What `next()` may change for the rest of the chain. */
export interface NextOptions {
  ctx?: object;
  input?: unknown;
  getRawInput?: () => Promise<unknown>;
}

/** What tRPC hands each middleware of a procedure call. */
export interface MiddlewareOptions<Ctx = unknown> {
  ctx: Ctx;
  input: unknown;
  getRawInput(): Promise<unknown>;
  path: string;
  type: string;
  meta: unknown;
  signal: AbortSignal | undefined;
  batchIndex: number;
  next(opts?: NextOptions): Promise<MiddlewareResult>;
}

/** A middleware as tRPC stores it: a function tagged with `_type` ("input", "output") when it validates. */
export type ProcedureMiddleware = ((opts: MiddlewareOptions) => Promise<MiddlewareResult>) & {
  _type?: string;
  synchronous?: true;
};

export interface ProcedureDef {
  type: "query" | "mutation" | "subscription";
  meta?: unknown;
  inputs: unknown[];
  output?: unknown;
  middlewares: ProcedureMiddleware[];
}

/** A procedure's definition, mutable in place (the validators are swapped at start). */
export function procedureDef(procedure: AnyProcedure): ProcedureDef {
  return (procedure as unknown as { _def: ProcedureDef })._def;
}

/** Every procedure of a router by its dotted path, nested routers flattened as tRPC flattens them. */
export function routerProcedures(router: AnyRouter): [path: string, procedure: AnyProcedure][] {
  return Object.entries(router._def.procedures as Record<string, AnyProcedure>);
}

/** One call of a procedure: its context, its input as the transport parsed it, its dotted path. */
export interface ProcedureCall {
  ctx: object;
  input: unknown;
  path: string;
  signal?: AbortSignal;
}

type CallState = Omit<MiddlewareOptions<object>, "next">;

/**
 * Runs a procedure as tRPC's caller does (each middleware in turn, the context merged as each passes it on, a
 * thrown error turned into a failed result and thrown), without the caller's proxy and its lookup by path: the
 * REST route table already holds the procedure. tRPC merges the options at every level with a transpiled object
 * spread, which cost about 3% of a list page's CPU; these native spreads do the same work.
 */
export function callProcedure(procedure: AnyProcedure, call: ProcedureCall): Promise<unknown> {
  const def = procedureDef(procedure);
  return runMiddleware(def.middlewares, 0, {
    ctx: call.ctx,
    input: undefined,
    getRawInput: rawInputOf(call.input),
    path: call.path,
    type: def.type,
    meta: def.meta,
    signal: call.signal,
    batchIndex: 0,
  }).then(dataOf);
}

// Module-level functions and object methods, not arrows bound to names inside the request: the TypeScript
// runtime (tsx) names each such arrow with a property definition every time one is made.
function rawInputOf(input: unknown): () => Promise<unknown> {
  return Promise.resolve.bind(Promise, input) as () => Promise<unknown>;
}

function dataOf(result: MiddlewareResult | undefined): unknown {
  if (!result)
    throw new TRPCError({
      code: "INTERNAL_SERVER_ERROR",
      message: "No result from middlewares - did you forget to `return next()`?",
    });
  if (!result.ok) throw result.error;
  return result.data;
}

async function runMiddleware(
  middlewares: ProcedureMiddleware[],
  index: number,
  state: CallState,
): Promise<MiddlewareResult> {
  try {
    // Built field by field rather than spread: one object shape for every middleware of every route.
    return await middlewares[index]!({
      ctx: state.ctx,
      input: state.input,
      getRawInput: state.getRawInput,
      path: state.path,
      type: state.type,
      meta: state.meta,
      signal: state.signal,
      batchIndex: state.batchIndex,
      next(n?: NextOptions) {
        return runMiddleware(middlewares, index + 1, {
          ctx: n?.ctx ? { ...state.ctx, ...n.ctx } : state.ctx,
          input: n && "input" in n ? n.input : state.input,
          getRawInput: n?.getRawInput ?? state.getRawInput,
          path: state.path,
          type: state.type,
          meta: state.meta,
          signal: state.signal,
          batchIndex: state.batchIndex,
        });
      },
    });
  } catch (cause) {
    return { ok: false, error: getTRPCErrorFromUnknown(cause) };
  }
}
