import { loadEnv } from "@rubricon/api";
import { Usage, WhoAmI } from "@rubricon/contracts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { createEvaluation, expectError } from "./helpers/assertions";
import {
  bearer,
  bodyOf,
  call,
  callRaw,
  mintApiKey,
  SignedUp,
  sessionHeaders,
  type TestUser,
  uniqueEmail,
} from "./helpers/clients";
import { startTestServer, TEST_SECRETS, type TestServer } from "./helpers/server";

/**
 * A self-hosted install as its operator first runs it: billing off (the default), so new teams have no monthly
 * quotas; billing on, plans and quotas apply as on a billed deployment. The dashboard's own requests are metered
 * apart from the team's API keys either way.
 */

let selfHosted: TestServer;
let billed: TestServer;

/** Signs up as a new person does, leaving the personal team on the plan the deployment gives it. */
async function newAccount(server: TestServer, label: string): Promise<TestUser> {
  const email = uniqueEmail(label);
  const password = "correct horse battery";
  const res = await call(SignedUp, `${server.url}/api/auth/sign-up`, {
    method: "POST",
    headers: { "Content-Type": "application/json", Origin: server.url },
    body: { email, password, name: label },
  });
  const { user, teamId } = bodyOf(res);
  const cookie = res.headers.getSetCookie()[0]!.split(";")[0]!;
  return { email, password, userId: user.id, teamId, cookie };
}

beforeAll(async () => {
  // What an install that sets nothing about billing gets (the test helper turns billing on for the limit suites).
  selfHosted = await startTestServer({ env: { BILLING_ENABLED: "false" } });
  billed = await startTestServer({ env: { BILLING_ENABLED: "true" }, database: selfHosted.database });
});
afterAll(async () => {
  await billed?.close();
  await selfHosted?.close();
});

describe("billing is off unless the operator turns it on", () => {
  it("is off in a configuration that does not mention it", () => {
    const env = loadEnv({ ...TEST_SECRETS, NODE_ENV: "test", BASE_URL: "http://localhost:3000" });
    expect(env.billingEnabled).toBe(false);
  });

  it("starts a new team on the self-hosted plan, where a sixth evaluation this month is created", async () => {
    const user = await newAccount(selfHosted, "selfhost");
    const key = await mintApiKey(selfHosted, user);
    for (let i = 0; i < 6; i++) await createEvaluation(selfHosted.api, bearer(key));
    const usage = bodyOf(await call(Usage, `${selfHosted.api}/usage`, { headers: bearer(key) }));
    expect(usage).toMatchObject({
      plan: "self_hosted",
      used: { evals_mo: 6 },
      limits: { evals_mo: -1, human_ratings_mo: -1, autouser_ratings_mo: -1 },
      remaining: { evals_mo: -1 },
    });
    // A team made later starts there too.
    const team = await callRaw(`${selfHosted.api}/teams`, {
      method: "POST",
      headers: sessionHeaders(selfHosted, user),
      body: { name: "Second" },
    });
    expect(team.status).toBe(201);
    expect(team.body).toMatchObject({ plan: "self_hosted" });
  });

  it("with billing on, starts a new team on Free and refuses the sixth evaluation with quota_exceeded", async () => {
    const user = await newAccount(billed, "billed");
    const key = await mintApiKey(billed, user);
    for (let i = 0; i < 5; i++) await createEvaluation(billed.api, bearer(key));
    const sixth = await call(z.never(), `${billed.api}/evaluations`, {
      method: "POST",
      headers: bearer(key),
      body: { name: "Sixth", type: "SSE" },
    });
    expectError(sixth, 429, { type: "rate_limit_error", code: "quota_exceeded" });
    const usage = bodyOf(await call(Usage, `${billed.api}/usage`, { headers: bearer(key) }));
    expect(usage).toMatchObject({ plan: "free", limits: { evals_mo: 5 }, remaining: { evals_mo: 0 } });
  });
});

describe("the dashboard's requests and the API budget", () => {
  it("meters a signed-in session apart: a minute of dashboard requests leaves the key's budget whole", async () => {
    const user = await newAccount(billed, "dashboard");
    const key = await mintApiKey(billed, user);
    // whoami is unmetered and reports the budget of whoever calls it.
    const keyBudget = async () =>
      Number(
        (await call(WhoAmI, `${billed.api}/auth/whoami`, { headers: bearer(key) })).headers.get(
          "x-ratelimit-remaining",
        ),
      );
    const before = await keyBudget();
    expect(before).toBeGreaterThan(0);
    let sessionRemaining = Number.POSITIVE_INFINITY;
    for (let i = 0; i < 30; i++) {
      const res = await call(Usage, `${billed.api}/usage`, { headers: sessionHeaders(billed, user) });
      expect(res.status).toBe(200);
      const res2 = await fetch(`${billed.api}/evaluations`, { headers: sessionHeaders(billed, user) });
      expect(res2.status).toBe(200);
      sessionRemaining = Number(res2.headers.get("x-ratelimit-remaining"));
    }
    // The dashboard's own window went down; the key's did not move.
    expect(sessionRemaining).toBeLessThan(60 - 25);
    expect(await keyBudget()).toBe(before);
  });
});
