import { Evaluation, EvaluationResults, PublicRater, PublicRaterList, ShareView } from "@rubricon/contracts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ATTEMPT_RULES } from "../src/limits/attempts";
import { expectError } from "./helpers/assertions";
import { bearer, bodyOf, call, mintApiKey, signUp, type TestUser } from "./helpers/clients";
import { PublicRaterStarted, runningEvaluation, shareRate } from "./helpers/ratings";
import { startTestServer, type TestServer } from "./helpers/server";

/** What one person could do to a public share link: stuff the ballot, burn the quota, outlast a password. */
let server: TestServer;
let owner: TestUser;
let key: string;

beforeAll(async () => {
  server = await startTestServer();
  owner = await signUp(server, "link-owner");
  key = await mintApiKey(server, owner, ["evaluations:*", "ratings:*"]);
});
afterAll(() => server?.close());

/** Starts (or resumes) on a share link, from a browser holding `cookie` if given. */
async function start(token: string, body: Record<string, unknown> = {}, cookie?: string | null) {
  const res = await call(PublicRaterStarted, `${server.url}/api/share/${token}/start`, {
    method: "POST",
    headers: {
      "Content-Type": "application/json",
      Origin: server.url,
      ...(cookie ? { Cookie: cookie } : {}),
    },
    body,
  });
  const set = res.headers.getSetCookie()[0];
  return { ...res, cookie: set ? set.split(";")[0]! : null };
}

const view = async (token: string, cookie?: string | null) =>
  bodyOf(
    await call(ShareView, `${server.url}/api/share/${token}`, { headers: cookie ? { Cookie: cookie } : {} }),
  );

const raters = async (id: string) =>
  bodyOf(
    await call(PublicRaterList, `${server.api}/evaluations/${id}/public-raters`, { headers: bearer(key) }),
  ).data;

describe("a public share link", () => {
  it("keeps one rater per browser: starting again with the rater cookie carries on as the same rater", async () => {
    const { evaluation } = await runningEvaluation(server, bearer(key), {
      extra: { shareAccess: "ANYONE_WITH_LINK" },
    });
    const first = await start(evaluation.shareToken);
    expect(first.status).toBe(201);
    const again = await start(evaluation.shareToken, {}, first.cookie);
    expect(again.status).toBe(200);
    expect(bodyOf(again).id).toBe(bodyOf(first).id);
    expect(await raters(evaluation.id)).toHaveLength(1);
  });

  it("limits the raters one address can start on a link", async () => {
    const { evaluation } = await runningEvaluation(server, bearer(key), {
      extra: { shareAccess: "ANYONE_WITH_LINK" },
    });
    const limit = ATTEMPT_RULES["share-start"].subject[0]!.limit;
    for (let i = 0; i < limit; i++) expect((await start(evaluation.shareToken)).status).toBe(201);
    const refused = await start(evaluation.shareToken);
    expectError(refused, 429, { type: "rate_limit_error", code: "rate_limit_exceeded" });
    expect(await raters(evaluation.id)).toHaveLength(limit);
  });

  it("shows nothing of a password-protected evaluation before the password", async () => {
    const { evaluation } = await runningEvaluation(server, bearer(key), {
      extra: {
        shareAccess: "PASSWORD_PROTECTED",
        sharePassword: "open sesame",
        description: "Secret roadmap",
        instructions: "Confidential",
        scenario: "Launch plans",
      },
    });
    const locked = await view(evaluation.shareToken);
    expect(locked.access.state).toBe("start");
    expect(locked.evaluation).toMatchObject({
      name: null,
      description: null,
      instructions: null,
      scenario: null,
      teamName: "",
    });
    expect(locked.comparisons).toEqual([]);
    const started = await start(evaluation.shareToken, { password: "open sesame" });
    const open = await view(evaluation.shareToken, started.cookie);
    expect(open.evaluation).toMatchObject({ name: evaluation.name, description: "Secret roadmap" });
  });

  it("ends the raters' sessions when the password changes", async () => {
    const { evaluation, comparisonIds } = await runningEvaluation(server, bearer(key), {
      extra: { shareAccess: "PASSWORD_PROTECTED", sharePassword: "open sesame", allowMultipleRatings: true },
    });
    const rater = await start(evaluation.shareToken, { password: "open sesame" });
    const rate = () =>
      shareRate(server, evaluation.shareToken, rater.cookie, {
        comparisonId: comparisonIds[0],
        dimensionRatings: { overall: 5 },
      });
    expect((await rate()).status).toBe(201);
    const patched = await call(Evaluation, `${server.api}/evaluations/${evaluation.id}`, {
      method: "PATCH",
      headers: bearer(key),
      body: { sharePassword: "a brand new passphrase" },
    });
    expect(patched.status).toBe(200);
    expectError(await rate(), 403, { type: "authorization_error", code: "share_password_required" });
    expect((await view(evaluation.shareToken, rater.cookie)).access.state).toBe("start");
    expect((await start(evaluation.shareToken, { password: "open sesame" }, rater.cookie)).status).toBe(403);
    const renewed = await start(evaluation.shareToken, { password: "a brand new passphrase" }, rater.cookie);
    expect(renewed.status).toBe(201);
  });

  it("can be replaced by a new token; the old link stops working at once", async () => {
    const { evaluation } = await runningEvaluation(server, bearer(key), {
      extra: { shareAccess: "ANYONE_WITH_LINK" },
    });
    const rotated = bodyOf(
      await call(Evaluation, `${server.api}/evaluations/${evaluation.id}/share-token/rotate`, {
        method: "POST",
        headers: bearer(key),
      }),
    );
    expect(rotated.shareToken).not.toBe(evaluation.shareToken);
    expect(rotated.links.share).toBe(`${server.url}/share/${rotated.shareToken}`);
    expectError(await call(ShareView, `${server.url}/api/share/${evaluation.shareToken}`), 404, {
      type: "not_found_error",
      code: "share_not_found",
    });
    expect((await view(rotated.shareToken)).access.state).toBe("start");
    const readOnly = await mintApiKey(server, owner, ["evaluations:read"]);
    expectError(
      await call(Evaluation, `${server.api}/evaluations/${evaluation.id}/share-token/rotate`, {
        method: "POST",
        headers: bearer(readOnly),
      }),
      403,
      { type: "authorization_error", code: "missing_required_scope" },
    );
  });

  it("lets the owners exclude a rater: no more ratings, and theirs leave the results", async () => {
    const { evaluation, comparisonIds } = await runningEvaluation(server, bearer(key), {
      extra: { shareAccess: "ANYONE_WITH_LINK" },
    });
    const honest = await start(evaluation.shareToken);
    const stuffer = await start(evaluation.shareToken);
    for (const [rater, value] of [
      [honest, 6],
      [stuffer, 1],
    ] as const) {
      const res = await shareRate(server, evaluation.shareToken, rater.cookie, {
        comparisonId: comparisonIds[0],
        dimensionRatings: { overall: value },
      });
      expect(res.status).toBe(201);
    }
    const results = async () =>
      bodyOf(
        await call(EvaluationResults, `${server.api}/evaluations/${evaluation.id}/results`, {
          headers: bearer(key),
        }),
      );
    expect((await results()).ratingCount).toBe(2);

    const stufferId = bodyOf(stuffer).id;
    const excluded = await call(
      PublicRater,
      `${server.api}/evaluations/${evaluation.id}/public-raters/${stufferId}/exclude`,
      { method: "POST", headers: bearer(key) },
    );
    expect(bodyOf(excluded)).toMatchObject({ id: stufferId, excluded: true, ratingCount: 1 });
    expect((await results()).ratingCount).toBe(1);
    const listed = await raters(evaluation.id);
    expect(listed.find((r) => r.id === stufferId)?.excluded).toBe(true);
    expect(listed.find((r) => r.id === bodyOf(honest).id)?.excluded).toBe(false);

    expectError(
      await shareRate(server, evaluation.shareToken, stuffer.cookie, {
        comparisonId: comparisonIds[1],
        dimensionRatings: { overall: 1 },
      }),
      403,
      { type: "authorization_error", code: "share_rater_excluded" },
    );
    expect((await view(evaluation.shareToken, stuffer.cookie)).access.state).toBe("excluded");
    expect((await start(evaluation.shareToken, {}, stuffer.cookie)).status).toBe(403);
    expectError(
      await call(PublicRater, `${server.api}/evaluations/${evaluation.id}/public-raters/pr_unknown/exclude`, {
        method: "POST",
        headers: bearer(key),
      }),
      404,
      { type: "not_found_error", code: "public_rater_not_found" },
    );
  });
});
