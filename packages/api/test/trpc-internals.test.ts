import { createRequire } from "node:module";
import { initTRPC } from "@trpc/server";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { appRouter } from "../src/routers/index";
import { PINNED_TRPC_VERSION, procedureDef, routerProcedures } from "../src/trpc/internals";

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
});
