import { createRequire } from "node:module";
import { initTRPC, TRPCError } from "@trpc/server";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { appRouter } from "../src/routers/index";
import { callProcedure, PINNED_TRPC_VERSION, procedureDef, routerProcedures } from "../src/trpc/internals";

const require = createRequire(import.meta.url);

describe("tRPC internals (src/trpc/internals.ts)", () => {
  it("run on the tRPC version they were written for", () => {
    const installed = (require("@trpc/server/package.json") as { version: string }).version;
    // An upgrade lands here first: re-check every shape in internals.ts, then move the pin.
    expect(installed, "tRPC changed: re-check src/trpc/internals.ts against its private shapes").toBe(
      PINNED_TRPC_VERSION,
    );
  });

  it("read a procedure's type, meta, inputs, output and tagged validators", () => {
    const t = initTRPC.meta<{ tag: string }>().create();
    const router = t.router({
      nested: t.router({
        thing: t.procedure
          .meta({ tag: "x" })
          .input(z.object({ a: z.string() }))
          .input(z.object({ b: z.number() }))
          .output(z.object({ ok: z.boolean() }))
          .mutation(() => ({ ok: true })),
      }),
      plain: t.procedure.query(() => 1),
    });
    const procedures = Object.fromEntries(routerProcedures(router));
    expect(Object.keys(procedures).sort()).toEqual(["nested.thing", "plain"]);
    const def = procedureDef(procedures["nested.thing"]!);
    expect(def.type).toBe("mutation");
    expect(def.meta).toEqual({ tag: "x" });
    expect(def.inputs).toHaveLength(2);
    expect(def.output).toBeDefined();
    expect(def.middlewares.map((m) => m._type).filter(Boolean)).toEqual(["input", "input", "output"]);
    expect(def.middlewares.every((m) => typeof m === "function")).toBe(true);
    expect(procedureDef(procedures.plain!).type).toBe("query");
  });

  it("find every REST procedure of the app router", () => {
    const withRoutes = routerProcedures(appRouter).filter(([, p]) => {
      const meta = procedureDef(p).meta as { openapi?: unknown; stream?: unknown } | undefined;
      return meta?.openapi !== undefined || meta?.stream !== undefined;
    });
    expect(withRoutes.length).toBeGreaterThanOrEqual(131);
  });

  it("run a procedure's middleware as tRPC's own caller does", async () => {
    const t = initTRPC.context<{ base: string; signal?: AbortSignal }>().create();
    const seen: unknown[] = [];
    const chain = t.procedure
      .use(({ ctx, next }) => next({ ctx: { added: `${ctx.base}+1` } }))
      .use(async ({ ctx, path, type, getRawInput, next }) => {
        seen.push({ ctx: { ...ctx }, path, type, raw: await getRawInput() });
        return next();
      })
      .input(z.object({ n: z.number() }));
    const router = t.router({
      ok: chain.query(({ ctx, input }) => ({ ctx, input })),
      fails: chain.mutation(() => {
        throw new Error("boom");
      }),
      refused: chain.query(() => {
        throw new TRPCError({ code: "FORBIDDEN", message: "no" });
      }),
      invalid: chain.query(() => 1),
    });
    const procedures = Object.fromEntries(routerProcedures(router));
    const caller = t.createCallerFactory(router)({ base: "b" });
    const viaCaller = async (name: string, input: unknown) =>
      (caller[name as "ok"] as (i: unknown) => Promise<unknown>)(input).then(
        (data) => ({ data }),
        (error: TRPCError) => ({ error: [error.constructor.name, error.code, error.message] }),
      );
    const viaRunner = (name: string, input: unknown) =>
      callProcedure(procedures[name]!, { ctx: { base: "b" }, input, path: name }).then(
        (data) => ({ data }),
        (error: TRPCError) => ({ error: [error.constructor.name, error.code, error.message] }),
      );
    for (const [name, input] of [
      ["ok", { n: 1 }],
      ["fails", { n: 2 }],
      ["refused", { n: 3 }],
      ["invalid", { n: "x" }],
    ] as const) {
      seen.length = 0;
      const expected = await viaCaller(name, input);
      const fromCaller = [...seen];
      seen.length = 0;
      expect(await viaRunner(name, input), name).toEqual(expected);
      expect(seen, name).toEqual(fromCaller);
    }
  });
});
