import {
  AccessRequest,
  AccessRequestList,
  Evaluation,
  Notification,
  NotificationList,
  NotificationsReadAll,
} from "@rubricon/contracts";
import { fixedClock } from "@rubricon/core";
import { emailOutbox } from "@rubricon/db";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createEvaluation, expectError, expectStatus, SSE_BODY } from "./helpers/assertions";
import { bearer, bodyOf, call, mintApiKey, sessionHeaders, signUp, type TestUser } from "./helpers/clients";
import { startTestServer, type TestServer } from "./helpers/server";
import { notificationsOf } from "./helpers/sharing";

let server: TestServer;
let owner: TestUser;
let requester: TestUser;
let other: TestUser;
let linked: Evaluation;

beforeAll(async () => {
  server = await startTestServer();
  [owner, requester, other] = await Promise.all([
    signUp(server, "owner"),
    signUp(server, "requester"),
    signUp(server, "other"),
  ]);
  linked = await createEvaluation(server.api, as(owner), {
    ...SSE_BODY,
    name: "Link-shared study",
    status: "Running",
    shareAccess: "ANYONE_WITH_LINK",
  });
});
afterAll(() => server?.close());

const as = (who: TestUser) => sessionHeaders(server, who);
const requestsUrl = (id: string, rest = "") => `${server.api}/evaluations/${id}/access-requests${rest}`;
const ask = (who: TestUser, id: string, body: unknown = { message: "I review checkout flows." }) =>
  call(AccessRequest, requestsUrl(id), { method: "POST", headers: as(who), body });
const act = (who: TestUser, id: string, requestId: string, action: string, body: unknown = {}) =>
  call(AccessRequest, requestsUrl(id, `/${requestId}/${action}`), { method: "POST", headers: as(who), body });

describe("asking for access", () => {
  it("points an outsider at the request route, takes one pending request, and puts it in the owner's inbox", async () => {
    const refused = await call(Evaluation, `${server.api}/evaluations/${linked.id}`, {
      headers: as(requester),
    });
    expectError(refused, 403, { type: "authorization_error", code: "evaluation_no_access" });
    expect(refused.body.error.message).toContain(`/evaluations/${linked.id}/access-requests`);

    const res = await ask(requester, linked.id);
    expectStatus(res, 201);
    expect(res.body).toMatchObject({
      object: "access_request",
      evaluationId: linked.id,
      evaluationName: "Link-shared study",
      requesterId: requester.userId,
      requester: { id: requester.userId, email: requester.email },
      status: "pending",
      message: "I review checkout flows.",
      decidedAt: null,
    });
    expect(res.body.id).toMatch(/^areq_/);
    expectError(await ask(requester, linked.id), 409, {
      type: "invalid_request_error",
      code: "access_request_already_pending",
    });

    const inbox = bodyOf(
      await call(AccessRequestList, `${server.api}/access-requests/inbox`, { headers: as(owner) }),
    );
    expect(inbox.data.map((r) => r.id)).toContain(res.body.id);
    const perEvaluation = bodyOf(
      await call(AccessRequestList, requestsUrl(linked.id), { headers: as(owner) }),
    );
    expect(perEvaluation.data.map((r) => r.id)).toEqual([res.body.id]);
    const mine = bodyOf(
      await call(AccessRequestList, requestsUrl(linked.id, "/mine"), { headers: as(requester) }),
    );
    expect(mine.data.map((r) => r.id)).toEqual([res.body.id]);
    const notMine = bodyOf(
      await call(AccessRequestList, requestsUrl(linked.id, "/mine"), { headers: as(other) }),
    );
    expect(notMine.data).toEqual([]);
    expectError(await call(AccessRequestList, requestsUrl(linked.id), { headers: as(requester) }), 403, {
      type: "authorization_error",
      code: "evaluation_no_access",
    });
    const told = await notificationsOf(server, owner);
    expect(told.data).toContainEqual(
      expect.objectContaining({
        kind: "access_request.created",
        data: expect.objectContaining({ requestId: res.body.id }),
      }),
    );
  });

  it("answers 404 on evaluations that take no requests, and refuses those who already have access", async () => {
    const teamOnly = await createEvaluation(server.api, as(owner), { ...SSE_BODY, status: "Running" });
    expectError(await ask(other, teamOnly.id), 404, {
      type: "not_found_error",
      code: "evaluation_not_found",
    });
    const draft = await createEvaluation(server.api, as(owner), {
      ...SSE_BODY,
      shareAccess: "ANYONE_WITH_LINK",
    });
    expectError(await ask(other, draft.id), 404, { type: "not_found_error", code: "evaluation_not_found" });
    expectError(await ask(other, "eval_doesnotexist"), 404, {
      type: "not_found_error",
      code: "evaluation_not_found",
    });
    expectError(await ask(owner, linked.id), 400, {
      type: "invalid_request_error",
      code: "already_has_access",
    });
    expectError(await ask(other, linked.id, { message: "x".repeat(501) }), 400, {
      type: "invalid_request_error",
      code: "parameter_invalid",
      param: "message",
    });
    const key = await mintApiKey(server, other, ["*"]);
    expectError(
      await call(AccessRequest, requestsUrl(linked.id), { method: "POST", headers: bearer(key), body: {} }),
      403,
      { type: "authorization_error" },
    );
  });
});

describe("answering", () => {
  it("approves into a VIEWER share, then allows no other move", async () => {
    const asked = bodyOf(await ask(other, linked.id, {}));
    const approved = await act(owner, linked.id, asked.id, "approve");
    expectStatus(approved, 200);
    expect(approved.body.status).toBe("approved");
    expect(approved.body.decidedAt).not.toBeNull();
    const seen = bodyOf(
      await call(Evaluation, `${server.api}/evaluations/${linked.id}`, { headers: as(other) }),
    );
    expect(seen.sharedWithYou).toEqual({ permission: "VIEWER" });
    for (const action of ["approve", "decline"]) {
      expectError(await act(owner, linked.id, asked.id, action), 400, {
        type: "invalid_request_error",
        code: "access_request_not_pending",
      });
    }
    expectError(await act(other, linked.id, asked.id, "withdraw"), 400, {
      type: "invalid_request_error",
      code: "access_request_not_pending",
    });
    const told = await notificationsOf(server, other);
    expect(told.data.map((n) => n.kind)).toContain("access_request.approved");
  });

  it("approves with the permission given, declines, and lets only the requester withdraw", async () => {
    const editorWanted = await signUp(server, "editor-wanted");
    const r1 = bodyOf(await ask(editorWanted, linked.id));
    const approved = await act(owner, linked.id, r1.id, "approve", { permission: "EDITOR" });
    expectStatus(approved, 200);
    const seen = bodyOf(
      await call(Evaluation, `${server.api}/evaluations/${linked.id}`, { headers: as(editorWanted) }),
    );
    expect(seen.sharedWithYou).toEqual({ permission: "EDITOR" });

    const declinedUser = await signUp(server, "declined");
    const r2 = bodyOf(await ask(declinedUser, linked.id));
    expectError(await act(requester, linked.id, r2.id, "withdraw"), 404, {
      type: "not_found_error",
      code: "access_request_not_found",
    });
    expectError(await act(declinedUser, linked.id, r2.id, "approve"), 403, {
      type: "authorization_error",
      code: "evaluation_no_access",
    });
    const declined = await act(owner, linked.id, r2.id, "decline");
    expectStatus(declined, 200);
    expect(declined.body.status).toBe("declined");
    expectError(await act(declinedUser, linked.id, r2.id, "withdraw"), 400, {
      type: "invalid_request_error",
      code: "access_request_not_pending",
    });
    expect((await notificationsOf(server, declinedUser)).data.map((n) => n.kind)).toContain(
      "access_request.declined",
    );
    // A declined request is closed, so a new one may be made.
    const r3 = bodyOf(await ask(declinedUser, linked.id));
    const withdrawn = await act(declinedUser, linked.id, r3.id, "withdraw");
    expectStatus(withdrawn, 200);
    expect(withdrawn.body.status).toBe("withdrawn");
    expectError(await act(owner, linked.id, r3.id, "approve"), 400, {
      type: "invalid_request_error",
      code: "access_request_not_pending",
    });
    expectError(await act(owner, linked.id, "areq_doesnotexist", "approve"), 404, {
      type: "not_found_error",
      code: "access_request_not_found",
    });

    const history = bodyOf(
      await call(AccessRequestList, requestsUrl(linked.id, "/mine"), { headers: as(declinedUser) }),
    );
    expect(history.data.map((r) => r.status)).toEqual(["withdrawn", "declined"]);
    const declinedInbox = bodyOf(
      await call(AccessRequestList, `${server.api}/access-requests/inbox?status=declined`, {
        headers: as(owner),
      }),
    );
    expect(declinedInbox.data.map((r) => r.id)).toContain(r2.id);
  });
});

describe("asking again", () => {
  it("cannot mail-bomb the inbox: a cool-down after a withdraw, one notification and e-mail per person a day", async () => {
    const clock = fixedClock(new Date());
    const own = await startTestServer({ clock });
    try {
      const [boss, asker] = await Promise.all([signUp(own, "boss"), signUp(own, "asker")]);
      const evaluation = await createEvaluation(own.api, sessionHeaders(own, boss), {
        ...SSE_BODY,
        status: "Running",
        shareAccess: "ANYONE_WITH_LINK",
      });
      const url = `${own.api}/evaluations/${evaluation.id}/access-requests`;
      const askAgain = () =>
        call(AccessRequest, url, {
          method: "POST",
          headers: sessionHeaders(own, asker),
          body: { message: "hi" },
        });
      const withdraw = (id: string) =>
        call(AccessRequest, `${url}/${id}/withdraw`, { method: "POST", headers: sessionHeaders(own, asker) });
      const told = async () => {
        const bell = (await notificationsOf(own, boss)).data.filter(
          (n) => n.kind === "access_request.created",
        );
        const mails = await own.database.db.select().from(emailOutbox).where(eq(emailOutbox.to, boss.email));
        return {
          bell: bell.length,
          mails: mails.filter((m) => m.subject.includes("asks for access")).length,
        };
      };

      // As in the attack: ask, withdraw, ask again, five times in a row.
      const statuses: number[] = [];
      for (let i = 0; i < 5; i++) {
        const asked = await askAgain();
        statuses.push(asked.status);
        if (asked.ok) expectStatus(await withdraw(asked.body.id), 200);
        else {
          expectError(asked, 429, { type: "rate_limit_error", code: "rate_limit_exceeded" });
          const retryAfter = Number(asked.headers.get("retry-after"));
          expect(retryAfter).toBeGreaterThan(590);
          expect(retryAfter).toBeLessThanOrEqual(600);
        }
      }
      expect(statuses).toEqual([201, 429, 429, 429, 429]);
      expect(await told()).toEqual({ bell: 1, mails: 1 });

      // After the cool-down the request is taken and waits in the inbox, but the owner was told today already.
      clock.advance(10 * 60 * 1000 + 1000);
      const later = await askAgain();
      expectStatus(later, 201);
      const inbox = bodyOf(
        await call(AccessRequestList, `${own.api}/access-requests/inbox`, {
          headers: sessionHeaders(own, boss),
        }),
      );
      expect(inbox.data.map((r) => r.id)).toContain(later.body.id);
      // A decline does not start a cool-down, and asking right after it tells nobody again either.
      expectStatus(
        await call(AccessRequest, `${url}/${later.body.id}/decline`, {
          method: "POST",
          headers: sessionHeaders(own, boss),
        }),
        200,
      );
      const afterDecline = await askAgain();
      expectStatus(afterDecline, 201);
      expect(await told()).toEqual({ bell: 1, mails: 1 });

      // A day on, the next request is news again.
      clock.advance(24 * 60 * 60 * 1000);
      expectStatus(await withdraw(afterDecline.body.id), 200);
      clock.advance(10 * 60 * 1000 + 1000);
      expectStatus(await askAgain(), 201);
      expect(await told()).toEqual({ bell: 2, mails: 2 });
    } finally {
      await own.close();
    }
  });
});

describe("notifications", () => {
  it("lists unread first, marks one or all read, and keeps each user's own", async () => {
    const list = await call(NotificationList, `${server.api}/notifications`, { headers: as(owner) });
    expectStatus(list, 200);
    expect(list.body.unread_count).toBeGreaterThanOrEqual(3);
    const first = list.body.data[0]!;
    expectError(
      await call(Notification, `${server.api}/notifications/${first.id}/read`, {
        method: "POST",
        headers: as(other),
      }),
      404,
      { type: "not_found_error", code: "notification_not_found" },
    );
    const read = await call(Notification, `${server.api}/notifications/${first.id}/read`, {
      method: "POST",
      headers: as(owner),
    });
    expectStatus(read, 200);
    expect(read.body.read).toBe(true);
    const after = bodyOf(await call(NotificationList, `${server.api}/notifications`, { headers: as(owner) }));
    expect(after.unread_count).toBe(list.body.unread_count - 1);
    expect(after.data.at(-1)!.id).toBe(first.id);
    const reads = after.data.map((n) => n.read);
    expect(reads).toEqual([...reads].sort((a, b) => Number(a) - Number(b)));

    const walked: string[] = [];
    let cursor: string | undefined;
    for (;;) {
      const page = bodyOf(
        await call(
          NotificationList,
          `${server.api}/notifications?limit=1${cursor ? `&starting_after=${cursor}` : ""}`,
          {
            headers: as(owner),
          },
        ),
      );
      walked.push(...page.data.map((n) => n.id));
      if (!page.has_more) break;
      cursor = page.next_cursor;
    }
    expect(walked).toEqual(after.data.map((n) => n.id));

    const all = await call(NotificationsReadAll, `${server.api}/notifications/read-all`, {
      method: "POST",
      headers: as(owner),
      body: {},
    });
    expectStatus(all, 200);
    expect(all.body.updated).toBe(after.unread_count);
    expect(
      bodyOf(await call(NotificationList, `${server.api}/notifications`, { headers: as(owner) }))
        .unread_count,
    ).toBe(0);
  });
});
