import { Evaluation, EvaluationCreateResult, EvaluationList } from "@rubricon/contracts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { z } from "zod";
import { appRouter } from "../src/routers/index";
import { trustedOutputPaths } from "../src/trpc/sync-validation";
import { insertAutouser } from "./helpers/autousers";
import { bearer, mintApiKey, sessionHeaders, signUp, type TestUser } from "./helpers/clients";
import { startTestServer, type TestServer } from "./helpers/server";
import { shareWith } from "./helpers/sharing";

// Routes that answer without parsing their output again (`trustedOutput`); each is checked below, results and
// agreement in results.test.ts.
const TRUSTED = [
  "evaluations.create",
  "evaluations.get",
  "evaluations.list",
  "results.agreement",
  "results.results",
];

let server: TestServer;
let owner: TestUser;
let viewer: TestUser;
let key: string;

beforeAll(async () => {
  server = await startTestServer();
  owner = await signUp(server, "trusted-owner");
  viewer = await signUp(server, "trusted-viewer");
  key = await mintApiKey(server, owner, ["evaluations:*"]);
});
afterAll(() => server?.close());

/**
 * The body must be byte for byte what parsing it with the route's schema and serialising the result answers:
 * nothing the schema does not name, every field in the schema's order, nothing the parse would change.
 */
async function expectSchemaBytes(schema: z.ZodType, res: Response, status: number): Promise<unknown> {
  const text = await res.text();
  expect(res.status, text).toBe(status);
  const parsed = schema.parse(JSON.parse(text));
  expect(text).toBe(JSON.stringify(parsed));
  return parsed;
}

const send = (path: string, headers: Record<string, string>, body?: unknown) =>
  fetch(`${server.api}${path}`, {
    method: body === undefined ? "GET" : "POST",
    headers: body === undefined ? headers : { ...headers, "Content-Type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });

describe("routes with trusted outputs", () => {
  it("are exactly the ones checked here", () => {
    expect(trustedOutputPaths(appRouter).sort()).toEqual(TRUSTED);
  });

  it("answer what their schemas would, for evaluations with every optional field set", async () => {
    const autouserId = await insertAutouser(server, owner.teamId);
    const full = {
      name: 'Trusted \u2028 "quoted" \\ name',
      description: "A description",
      type: "SxS",
      instructions: "Compare them",
      scenario: "Checkout",
      evaluationMethod: "both",
      selectedAutousers: [{ autouserId, agentCount: 2 }],
      ratingDeadline: "2030-01-02T03:04:05.678Z",
      targetRatingsPerComparison: 5,
      collectRaterName: true,
      comparisonPairs: [
        { label: "First", currentUrl: "https://example.com/a", variantUrl: "https://example.com/b" },
        { currentUrl: "https://example.com/c", variantUrl: "https://example.com/d" },
      ],
    };
    const created = (await expectSchemaBytes(
      EvaluationCreateResult,
      await send("/evaluations", bearer(key), full),
      201,
    )) as Evaluation;
    expect(created.selectedAutousers).toEqual([{ autouserId, agentCount: 2 }]);
    await expectSchemaBytes(
      EvaluationCreateResult,
      await send("/evaluations", bearer(key), { ...full, dryRun: true }),
      200,
    );
    await expectSchemaBytes(
      EvaluationCreateResult,
      await send("/evaluations", bearer(key), { name: "Plain", type: "SSE" }),
      201,
    );

    await expectSchemaBytes(Evaluation, await send(`/evaluations/${created.id}`, bearer(key)), 200);
    const first = (await expectSchemaBytes(
      EvaluationList,
      await send("/evaluations?limit=1", bearer(key)),
      200,
    )) as z.infer<typeof EvaluationList>;
    await expectSchemaBytes(
      EvaluationList,
      await send(`/evaluations?limit=5&starting_after=${first.next_cursor}`, bearer(key)),
      200,
    );

    // Seen through a share, an evaluation carries `sharedWithYou`.
    await shareWith(server, owner, created.id, viewer, "VIEWER");
    const shared = (await expectSchemaBytes(
      EvaluationList,
      await send("/evaluations", sessionHeaders(server, viewer)),
      200,
    )) as z.infer<typeof EvaluationList>;
    expect(shared.data.map((e) => e.sharedWithYou)).toEqual([{ permission: "VIEWER" }]);
    await expectSchemaBytes(
      Evaluation,
      await send(`/evaluations/${created.id}`, sessionHeaders(server, viewer)),
      200,
    );
  });
});
