import { PublicRaterList, Rating, ShareView } from "@rubricon/contracts";
import { publicRaters } from "@rubricon/db";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createEvaluation, expectError, expectStatus } from "./helpers/assertions";
import {
  bearer,
  bodyOf,
  call,
  errorOf,
  mintApiKey,
  sessionHeaders,
  signUp,
  type TestUser,
} from "./helpers/clients";
import { PublicRaterStarted, runningEvaluation, shareRate, startPublicRater } from "./helpers/ratings";
import { startTestServer, type TestServer } from "./helpers/server";

let server: TestServer;
let owner: TestUser;
let key: string;

beforeAll(async () => {
  server = await startTestServer();
  owner = await signUp(server, "owner");
  key = await mintApiKey(server, owner, ["evaluations:*", "ratings:*"]);
});
afterAll(() => server?.close());

const view = async (token: string, headers: Record<string, string> = {}) => {
  const res = await call(ShareView, `${server.url}/api/share/${token}`, { headers });
  return res;
};

describe("the share link", () => {
  it("is 404 while the evaluation is a Draft, though links.share already shows it", async () => {
    const draft = await createEvaluation(server.api, bearer(key), {
      name: "Draft",
      type: "SSE",
      shareAccess: "ANYONE_WITH_LINK",
    });
    expect(draft.links.share).toBe(`${server.url}/share/${draft.shareToken}`);
    expectError(await view(draft.shareToken), 404, { type: "not_found_error", code: "share_not_found" });
    const start = await startPublicRater(server, draft.shareToken);
    expect(start.status).toBe(404);
    expect(start.body).toMatchObject({ error: { type: "not_found_error", code: "share_not_found" } });
    expectError(await view("not-a-token"), 404, { type: "not_found_error", code: "share_not_found" });
  });

  it("lets anyone with the link rate after giving the details the evaluation asks for", async () => {
    const { evaluation, comparisonIds } = await runningEvaluation(server, bearer(key), {
      extra: { shareAccess: "ANYONE_WITH_LINK", collectRaterName: true, collectRaterEmail: true },
    });
    const before = bodyOf(await view(evaluation.shareToken));
    expect(before.access).toMatchObject({
      state: "start",
      start: { password: false, name: true, email: true },
      rater: null,
    });
    expect(before.comparisons).toEqual([]);

    const noName = await startPublicRater(server, evaluation.shareToken, { email: "ada@example.com" });
    expect(noName.status).toBe(400);
    expect(noName.body).toMatchObject({ error: { code: "rater_details_required", param: "name" } });
    const badEmail = await startPublicRater(server, evaluation.shareToken, { name: "Ada", email: "nope" });
    expect(badEmail.body).toMatchObject({ error: { type: "invalid_request_error", param: "email" } });

    const started = await startPublicRater(server, evaluation.shareToken, {
      name: "Ada",
      email: "ada@example.com",
    });
    expectStatus(started, 201);
    expect(started.cookie).toMatch(/^rubricon_rater=/);
    const cookie = started.cookie!;
    const [stored] = await server.database.db
      .select()
      .from(publicRaters)
      .where(eq(publicRaters.id, started.body.id));
    expect(stored!.tokenHash).not.toContain(cookie.split("=")[1]!);

    const ready = bodyOf(await view(evaluation.shareToken, { Cookie: cookie }));
    expect(ready.access).toMatchObject({ state: "ready", rater: { kind: "public", name: "Ada" } });
    expect(ready.comparisons.map((c) => c.id)).toEqual(comparisonIds);
    expect(ready.templates[0]).toMatchObject({ id: "overall", scaleMin: 1, scaleMax: 7 });

    const rated = await shareRate(server, evaluation.shareToken, cookie, {
      comparisonId: comparisonIds[0],
      dimensionRatings: { overall: 6 },
    });
    expect(rated.status).toBe(201);
    expect(rated.body).toMatchObject({ raterType: "public", publicRaterId: started.body.id, userId: null });
    expect(
      (
        await shareRate(server, evaluation.shareToken, cookie, {
          comparisonId: comparisonIds[0],
          dimensionRatings: { overall: 6 },
        })
      ).status,
    ).toBe(409);
    const after = bodyOf(await view(evaluation.shareToken, { Cookie: cookie }));
    expect(after.ratedComparisonIds).toEqual([comparisonIds[0]]);

    // Without the cookie there is no rater.
    expect(
      (
        await shareRate(server, evaluation.shareToken, null, {
          comparisonId: comparisonIds[1],
          dimensionRatings: { overall: 6 },
        })
      ).status,
    ).toBe(403);

    const raters = await call(PublicRaterList, `${server.api}/evaluations/${evaluation.id}/public-raters`, {
      headers: bearer(key),
    });
    expectStatus(raters, 200);
    const list = raters.body;
    expect(list.data).toEqual([
      expect.objectContaining({ id: started.body.id, name: "Ada", email: "ada@example.com", ratingCount: 1 }),
    ]);
  });

  it("asks for the password first on PASSWORD_PROTECTED links, checked on the server", async () => {
    const { evaluation, comparisonIds } = await runningEvaluation(server, bearer(key), {
      extra: { shareAccess: "PASSWORD_PROTECTED", sharePassword: "open sesame" },
    });
    const locked = bodyOf(await view(evaluation.shareToken));
    expect(locked.access).toMatchObject({ state: "start", start: { password: true } });
    expect(locked.comparisons).toEqual([]);
    const none = await startPublicRater(server, evaluation.shareToken, {});
    expect(none.body).toMatchObject({ error: { code: "share_password_required", param: "password" } });
    const wrong = await startPublicRater(server, evaluation.shareToken, { password: "guess" });
    expect(wrong.status).toBe(403);
    expect(wrong.body).toMatchObject({
      error: { type: "authorization_error", code: "share_password_incorrect" },
    });
    expect(wrong.cookie).toBeNull();
    const right = await startPublicRater(server, evaluation.shareToken, { password: "open sesame" });
    expect(right.status).toBe(201);
    const res = await shareRate(server, evaluation.shareToken, right.cookie, {
      comparisonId: comparisonIds[0],
      dimensionRatings: { overall: 3 },
    });
    expect(res.status).toBe(201);
  });

  it("requires a signed-in team member on TEAM_ONLY links, who rates as themselves", async () => {
    const { evaluation, comparisonIds } = await runningEvaluation(server, bearer(key));
    expect(evaluation.shareAccess).toBe("TEAM_ONLY");
    expect(bodyOf(await view(evaluation.shareToken)).access.state).toBe("sign_in_required");
    const outsider = await signUp(server, "outsider");
    expect(bodyOf(await view(evaluation.shareToken, { Cookie: outsider.cookie })).access.state).toBe(
      "not_a_member",
    );
    const blocked = await startPublicRater(server, evaluation.shareToken, {});
    expect(blocked.body).toMatchObject({ error: { code: "share_team_members_only" } });

    const member = bodyOf(await view(evaluation.shareToken, { Cookie: owner.cookie }));
    expect(member.access).toMatchObject({ state: "ready", rater: { kind: "user", id: owner.userId } });
    const res = await call(Rating, `${server.url}/api/share/${evaluation.shareToken}/ratings`, {
      method: "POST",
      headers: sessionHeaders(server, owner),
      body: { comparisonId: comparisonIds[0], dimensionRatings: { overall: 5 } },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ raterType: "user", userId: owner.userId });
    // A cookie-authenticated write from another site is refused.
    const forged = await call(Rating, `${server.url}/api/share/${evaluation.shareToken}/ratings`, {
      method: "POST",
      headers: { ...sessionHeaders(server, owner), Origin: "https://evil.example" },
      body: { comparisonId: comparisonIds[1], dimensionRatings: { overall: 5 } },
    });
    expect(forged.status).toBe(403);
    expect(errorOf(forged).code).toBe("cross_site_request");
  });

  it("keeps AUTOUSERS_LINK links for autousers", async () => {
    const { evaluation } = await runningEvaluation(server, bearer(key), {
      extra: { shareAccess: "AUTOUSERS_LINK" },
    });
    expect(bodyOf(await view(evaluation.shareToken)).access.state).toBe("autousers_only");
    const res = await startPublicRater(server, evaluation.shareToken, {});
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ error: { code: "share_autousers_only" } });
  });

  it("answers unknown share routes and wrong methods in the error envelope", async () => {
    const { evaluation } = await runningEvaluation(server, bearer(key), {
      extra: { shareAccess: "ANYONE_WITH_LINK" },
    });
    const wrong = await call(ShareView, `${server.url}/api/share/${evaluation.shareToken}`, {
      method: "POST",
      headers: { Origin: server.url },
    });
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get("allow")).toBe("GET");
    const bad = await call(PublicRaterStarted, `${server.url}/api/share/${evaluation.shareToken}/start`, {
      method: "POST",
      headers: { "Content-Type": "application/json", Origin: server.url },
      body: "{not json",
    });
    expect(bad.status).toBe(400);
    expect(errorOf(bad).code).toBe("invalid_json");
  });
});
