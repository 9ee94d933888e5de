import { systemClock } from "@rubricon/core";
import { createTestDatabase, type TestDatabase } from "@rubricon/db/testing";
import { initTRPC } from "@trpc/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { createHttpSurface, createServices } from "../src/app";
import { loadEnv } from "../src/config/env";
import type { RequestContext } from "../src/request/context";
import type { RouteMeta } from "../src/request/route-meta";
import { appRouter } from "../src/routers/index";
import { validateSynchronously, validatesSynchronously } from "../src/trpc/sync-validation";
import { readAnswer } from "./helpers/clients";
import { TEST_SECRETS } from "./helpers/server";

const t = initTRPC.context<RequestContext>().meta<RouteMeta>().create();
const Thing = z.object({ id: z.string(), count: z.number().int() });
const Query = z.object({ size: z.coerce.number().int().min(1) });
const Page = z.object({ page: z.coerce.number().int().default(1) });
// Were the async parse used, these routes would fail: only the synchronous (compiled) parse may run.
for (const schema of [Thing, Query, Page] as { parseAsync: unknown }[]) {
  schema.parseAsync = () => Promise.reject(new Error("parseAsync must not be used"));
}

const testRouter = validateSynchronously(
  t.router({
    good: t.procedure
      .meta({ public: true, openapi: { method: "GET", path: "/good" } })
      .input(z.object({}))
      .output(Thing)
      .query(() => ({ id: "thing_1", count: 2, secretHash: "must not leave" }) as z.infer<typeof Thing>),
    sized: t.procedure
      .meta({ public: true, openapi: { method: "GET", path: "/sized" } })
      .input(Query)
      .input(Page)
      .output(z.object({ size: z.number(), page: z.number() }))
      .query(({ input }) => ({ size: input.size, page: input.page })),
    bad: t.procedure
      .meta({ public: true, openapi: { method: "GET", path: "/bad" } })
      .input(z.object({}))
      .output(Thing)
      .query(() => ({ id: "thing_1", count: "two" }) as unknown as z.infer<typeof Thing>),
  }),
);

let database: TestDatabase;
let handle: (req: Request) => Promise<Response>;

beforeAll(async () => {
  database = await createTestDatabase();
  const env = loadEnv({ ...TEST_SECRETS, NODE_ENV: "test", BASE_URL: "http://127.0.0.1:1" });
  const { pipeline } = createHttpSurface(await createServices(env, database.db, systemClock), testRouter);
  handle = pipeline.handleWeb;
});
afterAll(() => database?.dispose());

describe("input and output validation", () => {
  it("runs synchronously on every procedure of the app router", () => {
    const withOutput = Object.values(appRouter._def.procedures).filter(
      (p) => (p as unknown as { _def: { output?: unknown } })._def.output !== undefined,
    );
    expect(withOutput.length).toBeGreaterThan(40);
    expect(validatesSynchronously(appRouter)).toBe(true);
    expect(
      validatesSynchronously(t.router({ x: t.procedure.output(Thing).query(() => ({ id: "a", count: 1 })) })),
    ).toBe(false);
    expect(validatesSynchronously(t.router({ x: t.procedure.input(Query).query(() => null) }))).toBe(false);
  });

  it("still strips what the schema does not name", async () => {
    const res = await handle(new Request("http://127.0.0.1:1/api/v1/good"));
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ id: "thing_1", count: 2 });
  });

  it("parses and merges several inputs, and answers 400 with the parameter for a bad one", async () => {
    const ok = await handle(new Request("http://127.0.0.1:1/api/v1/sized?size=3"));
    expect(ok.status).toBe(200);
    expect(await ok.json()).toEqual({ size: 3, page: 1 });
    const bad = await handle(new Request("http://127.0.0.1:1/api/v1/sized?size=0"));
    expect(bad.status).toBe(400);
    const { body } = await readAnswer(z.never(), bad);
    expect(body.error).toMatchObject({ type: "invalid_request_error", param: "size" });
  });

  it("still answers 500 api_error for an output outside the contract", async () => {
    const original = console.error;
    console.error = () => {};
    try {
      const res = await handle(new Request("http://127.0.0.1:1/api/v1/bad"));
      expect(res.status).toBe(500);
      const { body } = await readAnswer(z.never(), res);
      expect(body.error.type).toBe("api_error");
      expect(JSON.stringify(body)).not.toContain("two");
    } finally {
      console.error = original;
    }
  });
});
