import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bearer, callRaw, mintApiKey, sessionHeaders, signUp, type TestUser } from "./helpers/clients";
import { runningEvaluation, shareRate, startPublicRater } from "./helpers/ratings";
import { startTestServer, type TestServer } from "./helpers/server";

/**
 * A lone UTF-16 surrogate is valid JSON (`"\ud800"`) but not text Postgres can store: every route refuses it as
 * the caller's error, naming the field, whichever entry point it came through.
 */
const LONE = "before\ud800after";

let server: TestServer;
let user: TestUser;
let key: string;

beforeAll(async () => {
  server = await startTestServer({ env: { WEBHOOKS_ENABLED: "true", WEBHOOKS_ALLOW_PRIVATE_URLS: "true" } });
  user = await signUp(server, "surrogate");
  key = await mintApiKey(server, user, ["*"]);
}, 120_000);
afterAll(() => server?.close());

type Schema = { type?: string | string[]; properties?: Record<string, Schema>; $ref?: string };
type Operation = { requestBody?: { content?: Record<string, { schema?: Schema }> } };

describe("a lone surrogate in a text field", () => {
  it("is a 400 naming the field on every operation with a JSON body, never a 5xx", async () => {
    const doc = (await callRaw(`${server.api}/openapi.json`)).body as {
      paths: Record<string, Record<string, Operation>>;
      components: { schemas: Record<string, Schema> };
    };
    const resolve = (s?: Schema) => (s?.$ref ? doc.components.schemas[s.$ref.split("/").pop()!] : s);
    const evaluation = await runningEvaluation(server, bearer(key));
    const failures: string[] = [];
    let checked = 0;
    for (const [path, methods] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(methods)) {
        const schema = resolve(op.requestBody?.content?.["application/json"]?.schema);
        const field = Object.entries(schema?.properties ?? {}).find(([, s]) => {
          const type = resolve(s)?.type;
          return type === "string" || (Array.isArray(type) && type.includes("string"));
        })?.[0];
        if (!field) continue;
        const url = path.replace(/\{(\w+)\}/g, (_, name: string) =>
          name === "id" && path.startsWith("/evaluations") ? evaluation.evaluation.id : user.teamId,
        );
        for (const headers of [bearer(key), sessionHeaders(server, user)]) {
          const res = await callRaw(`${server.api}${url}`, {
            method: method.toUpperCase(),
            headers,
            body: { [field]: LONE },
          });
          checked++;
          const error = (res.body as { error?: { code?: string; param?: string } }).error;
          // A route the credential may not call refuses it before reading the body (401/403), as for any body.
          if (res.status === 401 || res.status === 403) continue;
          if (res.status !== 400 || error?.code !== "parameter_invalid" || error.param !== field)
            failures.push(
              `${method.toUpperCase()} ${path} (${field}): ${res.status} ${JSON.stringify(error)}`,
            );
        }
      }
    }
    expect(checked).toBeGreaterThan(40);
    expect(failures).toEqual([]);
  }, 240_000);

  it("in a rating's justification, deep in the body, is named by its path", async () => {
    const { evaluation, comparisonIds } = await runningEvaluation(server, bearer(key));
    const res = await callRaw(`${server.api}/evaluations/${evaluation.id}/ratings`, {
      method: "POST",
      headers: bearer(key),
      body: { comparisonId: comparisonIds[0], dimensionRatings: { overall: 5 }, justification: LONE },
    });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({
      error: { type: "invalid_request_error", code: "parameter_invalid", param: "justification" },
    });
    const nested = await callRaw(`${server.api}/evaluations`, {
      method: "POST",
      headers: bearer(key),
      body: { name: "Nested", type: "SSE", designUrls: [{ url: "https://example.com/", label: LONE }] },
    });
    expect(nested.status).toBe(400);
    expect(nested.body).toMatchObject({ error: { param: "designUrls[0].label" } });
    // A low surrogate alone is refused too; a well-formed pair (an emoji written as escapes) is text.
    const low = await callRaw(`${server.api}/evaluations`, {
      method: "POST",
      headers: bearer(key),
      body: { name: "x\udc00", type: "SSE" },
    });
    expect(low.body).toMatchObject({ error: { param: "name" } });
    const pair = await callRaw(`${server.api}/evaluations`, {
      method: "POST",
      headers: bearer(key),
      body: { name: "ok \ud83d\ude00", type: "SSE" },
    });
    expect(pair.status).toBe(201);
  });

  it("from an outsider rating on a share link is a 400, not a 5xx", async () => {
    const { evaluation, comparisonIds } = await runningEvaluation(server, bearer(key), {
      extra: { shareAccess: "ANYONE_WITH_LINK" },
    });
    const started = await startPublicRater(server, evaluation.shareToken, {});
    expect(started.status).toBe(201);
    const rated = await shareRate(server, evaluation.shareToken, started.cookie, {
      comparisonId: comparisonIds[0],
      dimensionRatings: { overall: 6 },
      justification: LONE,
    });
    expect(rated.status).toBe(400);
    expect(rated.body).toMatchObject({ error: { code: "parameter_invalid", param: "justification" } });
    const name = await startPublicRater(server, evaluation.shareToken, { name: LONE });
    expect(name.status).toBe(400);
    expect(name.body).toMatchObject({ error: { param: "name" } });
  });

  it("through the dashboard's tRPC endpoint is BAD_REQUEST naming the field", async () => {
    const res = await callRaw(`${server.url}/api/trpc/evaluations.create`, {
      method: "POST",
      headers: { ...sessionHeaders(server, user), "Content-Type": "application/json" },
      body: { name: LONE, type: "SSE" },
    });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: { data: { apiError: { param: "name" } } } });
  });
});
