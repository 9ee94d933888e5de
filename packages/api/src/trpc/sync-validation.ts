import { type AnyRouter, TRPCError } from "@trpc/server";
import { type ProcedureDef, type ProcedureMiddleware, procedureDef, routerProcedures } from "./internals";

interface SyncParser {
  parse(value: unknown): unknown;
}

function isSyncParser(value: unknown): value is SyncParser {
  return typeof value === "object" && value !== null && typeof (value as SyncParser).parse === "function";
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** As tRPC's input validator (400 on failure, inputs of several `.input()` calls merged), parsing synchronously. */
function synchronousInputValidator(schema: SyncParser): ProcedureMiddleware {
  const validate: ProcedureMiddleware = async (opts) => {
    const raw = await opts.getRawInput();
    let parsed: unknown;
    try {
      parsed = schema.parse(raw);
    } catch (cause) {
      throw new TRPCError({ code: "BAD_REQUEST", cause });
    }
    const input = isPlainObject(opts.input) && isPlainObject(parsed) ? { ...opts.input, ...parsed } : parsed;
    return opts.next({ input });
  };
  validate._type = "input";
  validate.synchronous = true;
  return validate;
}

/** As tRPC's output validator (500 "Output validation failed"), parsing synchronously. */
function synchronousOutputValidator(schema: SyncParser): ProcedureMiddleware {
  const validate: ProcedureMiddleware = async ({ next }) => {
    const result = await next();
    if (!result.ok) return result;
    let data: unknown;
    try {
      data = schema.parse(result.data);
    } catch (cause) {
      throw new TRPCError({ code: "INTERNAL_SERVER_ERROR", message: "Output validation failed", cause });
    }
    return { ...result, data };
  };
  validate._type = "output";
  validate.synchronous = true;
  return validate;
}

function procedureDefs(router: AnyRouter): ProcedureDef[] {
  return routerProcedures(router).map(([, p]) => procedureDef(p));
}

const isTrusted = (def: ProcedureDef) =>
  (def.meta as { trustedOutput?: true } | undefined)?.trustedOutput === true;

/**
 * tRPC validates a procedure's input and output with the schema's `parseAsync`, and zod runs its compiled object
 * parser only on synchronous parses: on a 20-item list page the interpreted async output parse was about a quarter
 * of the request's CPU. Our schemas have no async refinements, so each validator is replaced by a synchronous parse
 * of the same schema that fails as tRPC's does (input: 400; output: 500 "Output validation failed"). This reaches
 * into tRPC 11's procedure definitions; the version is pinned and `sync-validation.test.ts` fails if their shape
 * changes.
 *
 * A route whose meta says `trustedOutput` loses its output validator: its serializer already answers exactly what
 * the schema would (a test holds it to that), and parsing 20 evaluations again cost a list page about a twentieth
 * of its CPU. The schema stays on the procedure for the OpenAPI document.
 */
export function validateSynchronously<R extends AnyRouter>(router: R): R {
  for (const def of procedureDefs(router)) {
    let inputIndex = 0;
    def.middlewares = def.middlewares.flatMap((m) => {
      if (m._type === "input") {
        const schema = def.inputs[inputIndex++];
        return [isSyncParser(schema) ? synchronousInputValidator(schema) : m];
      }
      if (m._type === "output" && isTrusted(def)) return [];
      if (m._type === "output" && isSyncParser(def.output)) return [synchronousOutputValidator(def.output)];
      return [m];
    });
  }
  return router;
}

/** Procedures whose output is not validated on each response (`trustedOutput`), by path. */
export function trustedOutputPaths(router: AnyRouter): string[] {
  return routerProcedures(router)
    .filter(([, p]) => isTrusted(procedureDef(p)))
    .map(([path]) => path);
}

/** Whether every input and output validator of the router parses synchronously. */
export function validatesSynchronously(router: AnyRouter): boolean {
  return procedureDefs(router).every((def) =>
    def.middlewares.every((m) => (m._type !== "input" && m._type !== "output") || m.synchronous === true),
  );
}
