import { compileErrors, validate } from "@readme/openapi-parser";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RouteTable } from "../src/http/route-table";
import { appRouter } from "../src/routers/index";
import { UUID_V7 } from "./helpers/assertions";
import { callRaw } from "./helpers/clients";
import { startTestServer, type TestServer } from "./helpers/server";

type Operation = {
  responses: Record<string, { $ref?: string }>;
  "x-required-scope"?: string;
};
type Document = {
  openapi: string;
  info: { title: string; version: string };
  paths: Record<string, Record<string, Operation>>;
  security: Record<string, string[]>[];
  components: {
    securitySchemes: Record<string, { type: string; scheme?: string }>;
    responses: Record<string, { content: { "application/json": { schema: { $ref: string } } } }>;
    schemas: Record<string, unknown>;
  };
};

let server: TestServer;
let doc: Document;

beforeAll(async () => {
  server = await startTestServer();
  const res = await callRaw(`${server.api}/openapi.json`);
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toMatch(/application\/json/);
  expect(res.headers.get("x-request-id")).toMatch(UUID_V7);
  doc = res.body as Document;
});
afterAll(() => server?.close());

describe("OpenAPI document", () => {
  it("is served without authentication and is a valid OpenAPI 3.1 document", async () => {
    const result = await validate(structuredClone(doc) as never);
    expect(result.valid, result.valid ? "" : compileErrors(result)).toBe(true);
    expect(doc.openapi).toBe("3.1.0");
    expect(doc.info).toMatchObject({ title: "API", version: "v1" });
  });

  it("declares Bearer authentication as its single security scheme", () => {
    expect(doc.components.securitySchemes).toEqual({
      bearerAuth: expect.objectContaining({ type: "http", scheme: "bearer" }),
    });
    expect(doc.security).toEqual([{ bearerAuth: [] }]);
    expect(JSON.stringify(doc)).not.toContain("sessionCookie");
  });

  it("documents every route of the route table with its method", () => {
    const routes = new RouteTable(appRouter).routes;
    expect(routes.length).toBeGreaterThan(10);
    const missing = routes
      .filter((r) => !doc.paths[r.path]?.[r.method.toLowerCase()])
      .map((r) => `${r.method} ${r.path}`);
    expect(missing).toEqual([]);
    const documented = Object.entries(doc.paths).flatMap(([path, ops]) =>
      Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`),
    );
    expect(documented.sort()).toEqual(routes.map((r) => `${r.method} ${r.path}`).sort());
  });

  it("documents 201 for POST /evaluations and the scope it needs", () => {
    const op = doc.paths["/evaluations"]!.post!;
    expect(op.responses).toHaveProperty("201");
    expect(op.responses).not.toHaveProperty("200");
    expect(op["x-required-scope"]).toBe("evaluations:write");
    expect(doc.paths["/evaluations"]!.get!.responses).toHaveProperty("200");
  });

  it("points every operation's 4xx responses at the ErrorEnvelope", () => {
    expect(doc.components.schemas).toHaveProperty("ErrorEnvelope");
    for (const [path, ops] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(ops)) {
        const errors = Object.entries(op.responses).filter(([status]) => /^4\d\d$/.test(status));
        expect(errors.length, `${method} ${path}`).toBeGreaterThan(0);
        for (const [status, response] of errors) {
          const name = response.$ref?.replace("#/components/responses/", "");
          const resolved = name ? doc.components.responses[name] : (response as never);
          expect(resolved?.content?.["application/json"]?.schema?.$ref, `${method} ${path} ${status}`).toBe(
            "#/components/schemas/ErrorEnvelope",
          );
        }
      }
    }
  });
});

describe("ratings and results in the document", () => {
  it("documents the rating, results, agreement and export routes with their statuses", () => {
    expect(doc.paths["/evaluations/{id}/ratings"]!.post!.responses).toHaveProperty("201");
    expect(doc.paths["/evaluations/{id}/ratings/bulk-delete"]!.post!.responses).toHaveProperty("200");
    expect(doc.paths["/evaluations/{id}/results"]!.get!.responses).toHaveProperty("200");
    expect(doc.paths["/evaluations/{id}/agreement"]!.get!.responses).toHaveProperty("200");
    expect(doc.paths["/evaluations/{id}/public-raters"]!.get!.responses).toHaveProperty("200");
    const exported = doc.paths["/evaluations/{id}/export"]!.get!.responses["200"] as {
      content: Record<string, unknown>;
    };
    expect(Object.keys(exported.content)).toEqual(expect.arrayContaining(["application/json", "text/csv"]));
  });

  it("documents the conditional reads of results and agreement, and of no other route", () => {
    const conditional = Object.entries(doc.paths).flatMap(([path, ops]) =>
      Object.entries(ops)
        .filter(([, op]) => "304" in ((op as { responses?: object }).responses ?? {}))
        .map(([method]) => `${method.toUpperCase()} ${path}`),
    );
    expect(conditional.sort()).toEqual(["GET /evaluations/{id}/agreement", "GET /evaluations/{id}/results"]);
    for (const path of ["/evaluations/{id}/results", "/evaluations/{id}/agreement"]) {
      const op = doc.paths[path]!.get! as unknown as {
        parameters: { name: string; in: string }[];
        responses: Record<string, { headers: Record<string, unknown>; content?: unknown }>;
      };
      expect(op.parameters).toContainEqual(expect.objectContaining({ name: "If-None-Match", in: "header" }));
      expect(Object.keys(op.responses["200"]!.headers)).toEqual(
        expect.arrayContaining(["ETag", "Cache-Control"]),
      );
      expect(op.responses["304"]!.content).toBeUndefined();
      expect(Object.keys(op.responses["304"]!.headers)).toEqual(
        expect.arrayContaining(["ETag", "X-Request-Id"]),
      );
    }
  });
});

describe("the error envelope schema", () => {
  it("is a real object schema, not a reference to itself", () => {
    const envelope = doc.components.schemas.ErrorEnvelope as {
      type?: string;
      $ref?: string;
      properties?: object;
    };
    expect(envelope.$ref).toBeUndefined();
    expect(envelope.type).toBe("object");
    expect(envelope.properties).toHaveProperty("error");
  });
});
