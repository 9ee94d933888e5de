import { createConfig, lintFromString } from "@redocly/openapi-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RouteTable } from "../src/http/route-table";
import { appRouter } from "../src/routers/index";
import { expectError } from "./helpers/assertions";
import { bearer, callRaw, mintApiKey, sessionHeaders, signUp, type TestUser } from "./helpers/clients";
import { startTestServer, type TestServer } from "./helpers/server";

/** The OpenAPI document held to what the server does, route by route, and linted by an outside tool. */

type Parameter = { name: string; in: string; description?: string };
type Operation = {
  tags?: string[];
  description?: string;
  security?: Record<string, string[]>[];
  parameters?: Parameter[];
  responses: Record<string, { $ref?: string }>;
  requestBody?: { content: Record<string, { schema: Record<string, unknown> }> };
  "x-session-only"?: boolean;
};
type Document = {
  tags: { name: string; description: string }[];
  paths: Record<string, Record<string, Operation>>;
  components: {
    responses: Record<string, { headers: Record<string, unknown> }>;
    schemas: Record<string, { properties?: Record<string, unknown> }>;
  };
};

let server: TestServer;
let doc: Document;
let user: TestUser;
let key: string;
const routes = new RouteTable(appRouter).routes;

/** Every operation as `[METHOD path, operation]`. */
function operations(): [string, Operation][] {
  return Object.entries(doc.paths).flatMap(([path, ops]) =>
    Object.entries(ops).map(([method, op]) => [`${method.toUpperCase()} ${path}`, op] as [string, Operation]),
  );
}

/** A concrete URL for a templated path: ids that exist nowhere, so nothing is touched. */
const concrete = (path: string) => `${server.api}${path.replace(/\{(\w+)\}/g, "x_0000")}`;

beforeAll(async () => {
  // The limit is not under test here, and these suites call many routes in a row.
  server = await startTestServer({ env: { WEBHOOKS_ENABLED: "true", RATE_LIMIT_MODE: "log" } });
  doc = (await callRaw(`${server.api}/openapi.json`)).body as Document;
  user = await signUp(server, "conformance");
  key = await mintApiKey(server, user, ["*"]);
});
afterAll(() => server?.close());

describe("who may call each operation", () => {
  it("marks exactly the session-only routes cookie-only, and says so in their descriptions", () => {
    const sessionOnly = routes.filter((r) => r.meta.sessionOnly).map((r) => `${r.method} ${r.path}`);
    expect(sessionOnly.length).toBeGreaterThan(20);
    const cookieOnly = operations()
      .filter(([, op]) => op["x-session-only"] === true)
      .map(([name]) => name);
    expect(cookieOnly.sort()).toEqual(sessionOnly.sort());
    for (const [name, op] of operations()) {
      if (!cookieOnly.includes(name)) continue;
      expect(op.description, name).toContain("session_required");
    }
  });

  it("answers 403 session_required to an API key on every cookie-only operation", async () => {
    const cookieOnly = operations().filter(([, op]) => op["x-session-only"] === true);
    for (const [name] of cookieOnly) {
      const [method, path] = name.split(" ") as [string, string];
      const res = await callRaw(concrete(path), {
        method,
        headers: { ...bearer(key), "Content-Type": "application/json" },
        body: method === "GET" || method === "DELETE" ? undefined : {},
      });
      expect(res.status, name).toBe(403);
      expect((res.body as { error: { code: string } }).error.code, name).toBe("session_required");
    }
  });
});

describe("bodies", () => {
  const bodyOps = () =>
    operations().filter(([name]) => /^(POST|PATCH|PUT) /.test(name) && !name.startsWith("POST /auth/figma"));

  it("documents 413 and 415 on every operation that reads a body, and the server answers both", async () => {
    const missing = bodyOps()
      .filter(([, op]) => !op.responses["413"] || !op.responses["415"])
      .map(([name]) => name);
    expect(missing).toEqual([]);
    const huge = JSON.stringify({ pad: "x".repeat(1_100_000) });
    for (const [name, op] of bodyOps()) {
      const [method, path] = name.split(" ") as [string, string];
      const upload = !!op.requestBody?.content["multipart/form-data"];
      const wrongType = await callRaw(concrete(path), {
        method,
        headers: { ...sessionHeaders(server, user), "Content-Type": "text/plain" },
        body: "hello",
      });
      expect(wrongType.status, name).toBe(415);
      expect((wrongType.body as { error: { code: string } }).error.code).toBe("unsupported_media_type");
      if (upload) continue;
      const tooLarge = await callRaw(concrete(path), {
        method,
        headers: sessionHeaders(server, user),
        body: huge,
      });
      // A route with a larger cap of its own reads the body and refuses it for what it holds instead.
      const cap = routes.find((r) => `${r.method} ${r.path}` === name)?.meta.maxBodyBytes;
      if (cap && cap > huge.length) continue;
      expect(tooLarge.status, name).toBe(413);
    }
  });

  it("says `accessibilityNeeds` holds unique items, and the server refuses a repeated one", async () => {
    const body = doc.paths["/autousers"]!.post!.requestBody!.content["application/json"]!.schema as {
      properties: Record<string, { uniqueItems?: boolean }>;
    };
    expect(body.properties.accessibilityNeeds!.uniqueItems).toBe(true);
    const res = await callRaw(`${server.api}/autousers`, {
      method: "POST",
      headers: { ...bearer(key), "Content-Type": "application/json" },
      body: {
        name: "Twice",
        role: "Tester",
        description: "Repeats a need.",
        expertise: "novice",
        accessibilityNeeds: ["keyboard-only", "keyboard-only"],
      },
    });
    expect(res.status).toBe(400);
    expect((res.body as { error: { param: string } }).error.param).toMatch(/^accessibilityNeeds/);
  });

  it("says a share names exactly one of userId or email (oneOf), and the server refuses both and neither", async () => {
    const body =
      doc.paths["/evaluations/{id}/shares"]!.post!.requestBody!.content["application/json"]!.schema;
    expect(body.oneOf).toEqual([{ required: ["userId"] }, { required: ["email"] }]);
    const created = await callRaw(`${server.api}/evaluations`, {
      method: "POST",
      headers: { ...bearer(key), "Content-Type": "application/json" },
      body: { name: "Shared", type: "SSE" },
    });
    const id = (created.body as { id: string }).id;
    for (const share of [{}, { userId: "user_x", email: "someone@example.com" }]) {
      const res = await callRaw(`${server.api}/evaluations/${id}/shares`, {
        method: "POST",
        headers: { ...bearer(key), "Content-Type": "application/json" },
        body: share,
      });
      expect(res.status, JSON.stringify(share)).toBe(400);
    }
  });
});

describe("parameters and headers", () => {
  it("says on each cursor that it excludes the others, and the server refuses two at once", async () => {
    const lists = operations().filter(([, op]) => op.parameters?.some((p) => p.name === "ending_before"));
    expect(lists.length).toBeGreaterThan(10);
    for (const [name, op] of lists) {
      const byName = Object.fromEntries(op.parameters!.map((p) => [p.name, p]));
      expect(byName.starting_after?.description, name).toContain("Not with `ending_before`");
      expect(byName.ending_before?.description, name).toContain("Not with `starting_after`");
    }
    const res = await callRaw(`${server.api}/evaluations?starting_after=a&ending_before=b`, {
      headers: bearer(key),
    });
    expectError(res as never, 400, { type: "invalid_request_error", param: "ending_before" });
  });

  it("documents no rate-limit headers on 401, which carries none", async () => {
    expect(Object.keys(doc.components.responses.Error401!.headers)).toEqual(["X-Request-Id"]);
    expect(doc.components.responses.Error403!.headers).toHaveProperty("X-RateLimit-Remaining");
    const res = await callRaw(`${server.api}/evaluations`);
    expect(res.status).toBe(401);
    expect([...res.headers.keys()].filter((h) => h.startsWith("x-ratelimit"))).toEqual([]);
    const bad = await callRaw(`${server.api}/evaluations`, { headers: bearer("ak_live_notakey") });
    expect(bad.status).toBe(401);
    expect([...bad.headers.keys()].filter((h) => h.startsWith("x-ratelimit"))).toEqual([]);
  });
});

describe("the reference", () => {
  it("gives every operation a tag listed at the top with a description, and a description of its own", () => {
    const listed = new Map(doc.tags.map((t) => [t.name, t.description]));
    for (const [name, description] of listed) expect(description.length, name).toBeGreaterThan(20);
    for (const [name, op] of operations()) {
      expect(op.tags?.length, name).toBeGreaterThan(0);
      for (const tag of op.tags!) expect(listed.has(tag), `${name}: ${tag}`).toBe(true);
      // One real sentence at least, beyond the access notes the generator adds.
      const own = op.description?.split("\n\n")[0] ?? "";
      expect(own.length, name).toBeGreaterThan(30);
    }
  });

  it("passes the Redocly linter's recommended rules, with descriptions and tags required, without a problem", async () => {
    const config = await createConfig({
      extends: ["recommended-strict"],
      rules: {
        "operation-description": "error",
        "operation-tag-defined": "error",
        "tag-description": "error",
        // The server URL is the deployment's own BASE_URL, which is localhost in tests.
        "no-server-example.com": "off",
        // GET /files/{fileId} answers a 302 to the file's signed URL, never a 2xx.
        "operation-2xx-response": "off",
        // Each deployment serves its own document; its terms are the operator's, so the document names none.
        "info-license": "off",
      },
    });
    const problems = await lintFromString({
      source: JSON.stringify(doc),
      absoluteRef: "openapi.json",
      config,
    });
    const found = problems.map((p) => `${p.ruleId}: ${p.message} at ${p.location[0]?.pointer}`);
    expect(found).toEqual([]);
  });
});
