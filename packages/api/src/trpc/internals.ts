import type { AnyProcedure, AnyRouter } from "@trpc/server";

/**
 * The one place that reads tRPC's private procedure definitions (`_def`). The REST runner calls a procedure's
 * middleware chain directly, the validators are swapped for synchronous ones, the route table reads each
 * procedure's meta and the OpenAPI document its input schemas: all of that goes through here. The shapes below
 * are tRPC 11's; `internals.test.ts` pins the installed version and checks each field, so an upgrade fails there,
 * with a message that names this file, before any route misbehaves.
 */
export const PINNED_TRPC_VERSION = "11.22.1";

export type MiddlewareResult = { ok: true; data: unknown } | { ok: false; error?: unknown };

/** A middleware as tRPC stores it: a function tagged with `_type` ("input", "output") when it validates. */
export type ProcedureMiddleware = ((opts: never) => Promise<MiddlewareResult>) & {
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
