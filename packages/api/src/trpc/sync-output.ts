import { type AnyRouter, TRPCError } from "@trpc/server";

interface SyncParser {
  parse(value: unknown): unknown;
}

type Middleware = ((opts: { next: () => Promise<MiddlewareResult> }) => Promise<MiddlewareResult>) & {
  _type?: string;
  synchronousOutput?: true;
};
type MiddlewareResult = { ok: true; data: unknown } | { ok: false };

interface ProcedureDef {
  output?: unknown;
  middlewares: Middleware[];
}

function isSyncParser(value: unknown): value is SyncParser {
  return typeof value === "object" && value !== null && typeof (value as SyncParser).parse === "function";
}

function synchronousOutputValidator(schema: SyncParser): Middleware {
  const validate: Middleware = async ({ next }) => {
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
  validate.synchronousOutput = true;
  return validate;
}

/**
 * tRPC validates a procedure's output with the schema's `parseAsync`, and zod runs its compiled object parser only
 * on synchronous parses: on a 20-item list page the interpreted async parse was about a quarter of the request's
 * CPU. Output schemas have no async refinements, so each procedure's output validator is replaced by a synchronous
 * parse of the same schema that fails as tRPC's does (500, "Output validation failed"). This reaches into tRPC 11's
 * procedure definitions; the version is pinned and `sync-output.test.ts` fails if their shape changes.
 */
export function validateOutputsSynchronously<R extends AnyRouter>(router: R): R {
  for (const procedure of Object.values(router._def.procedures) as { _def: ProcedureDef }[]) {
    const def = procedure._def;
    if (!isSyncParser(def.output)) continue;
    const schema = def.output;
    def.middlewares = def.middlewares.map((m) =>
      m._type === "output" ? synchronousOutputValidator(schema) : m,
    );
  }
  return router;
}

/** Whether every procedure of the router that declares an output validates it synchronously. */
export function outputsValidateSynchronously(router: AnyRouter): boolean {
  return (Object.values(router._def.procedures) as { _def: ProcedureDef }[]).every(
    ({ _def }) =>
      _def.output === undefined ||
      (_def.middlewares.some((m) => m.synchronousOutput) &&
        !_def.middlewares.some((m) => m._type === "output" && !m.synchronousOutput)),
  );
}
