import { systemClock } from "@rubricon/core";
import { createTestDatabase, type TestDatabase } from "@rubricon/db/testing";
import { initTRPC } from "@trpc/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { createHttpSurface, createServices } from "../src/app";
import { loadEnv } from "../src/config/env";
import { configureLogging } from "../src/observability/logger";
import type { RequestContext } from "../src/request/context";
import type { RouteMeta } from "../src/request/route-meta";
import { readAnswer } from "./helpers/clients";
import { TEST_SECRETS } from "./helpers/server";

// A router of our own whose procedure fails the way a driver or a bug does: with an internal message.
const t = initTRPC.context<RequestContext>().meta<RouteMeta>().create();
const failingRouter = t.router({
  boom: t.procedure
    .meta({ public: true, openapi: { method: "GET", path: "/boom" } })
    .input(z.object({}))
    .output(z.object({}))
    .query(() => {
      throw new Error("connect ECONNREFUSED postgres://admin:hunter2@10.0.0.5:5432/prod at Socket.ts:42");
    }),
});

let database: TestDatabase;
let handle: (req: Request) => Promise<Response>;

beforeAll(async () => {
  database = await createTestDatabase();
  const env = loadEnv({
    ...TEST_SECRETS,
    NODE_ENV: "test",
    BASE_URL: "http://127.0.0.1:1",
  });
  const { pipeline } = createHttpSurface(await createServices(env, database.db, systemClock), failingRouter);
  handle = pipeline.handleWeb;
});
afterAll(() => database?.dispose());

describe("unexpected failures", () => {
  it("answer 500 api_error with the request id and never the internal message", async () => {
    const errors: string[] = [];
    configureLogging({ logLevel: "error", logFormat: "json" }, "test", {
      write: (line) => errors.push(line),
    });
    try {
      const res = await handle(new Request("http://127.0.0.1:1/api/v1/boom"));
      expect(res.status).toBe(500);
      const { body } = await readAnswer(z.never(), res);
      expect(body.error.type).toBe("api_error");
      expect(body.error.code).toBe("internal_error");
      expect(body.error.request_id).toBe(res.headers.get("x-request-id"));
      expect(JSON.stringify(body)).not.toMatch(/hunter2|ECONNREFUSED|postgres|Socket\.ts/);
      // The operator still gets the cause in the server log, tagged with the request id.
      const logged = errors.map((l) => JSON.parse(l) as Record<string, unknown>);
      expect(logged.find((l) => l.requestId === body.error.request_id)).toMatchObject({ level: "error" });
    } finally {
      configureLogging({ logLevel: "silent", logFormat: "json" }, "test");
    }
  });
});
