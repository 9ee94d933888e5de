import { fixedClock, setPasswordHashCost } from "@rubricon/core";
import { users } from "@rubricon/db";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { ATTEMPT_RULES } from "../src/limits/attempts";
import { expectError } from "./helpers/assertions";
import {
  bearer,
  call,
  mintApiKey,
  SignedIn,
  SignedUp,
  signUp,
  type TestUser,
  uniqueEmail,
} from "./helpers/clients";
import { runningEvaluation, startPublicRater } from "./helpers/ratings";
import { startTestServer, type TestServer } from "./helpers/server";

/** Password guesses and sign-ups are throttled per account (or link) and per address, with a growing back-off. */
const T0 = new Date("2026-11-23T09:00:00.000Z");
const clock = fixedClock(T0);
let server: TestServer;
let user: TestUser;

beforeAll(async () => {
  server = await startTestServer({ clock });
  user = await signUp(server, "guessed");
});
afterAll(() => server?.close());

/** Past every short window, inside the long ones. */
const nextMinute = () => clock.advance(61_000);

const signIn = (email: string, password: string) =>
  call(SignedIn, `${server.url}/api/auth/sign-in`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: { email, password },
  });

describe("sign-in", () => {
  it("refuses an account's guesses after five failures, even the right password, until the window frees", async () => {
    const limit = ATTEMPT_RULES["sign-in"].subject[0]!.limit;
    for (let i = 0; i < limit; i++) {
      expectError(await signIn(user.email, `wrong ${i}`), 401, {
        type: "authentication_error",
        code: "invalid_credentials",
      });
    }
    const refused = await signIn(user.email, user.password);
    expectError(refused, 429, { type: "rate_limit_error", code: "rate_limit_exceeded" });
    const retryAfter = Number(refused.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(60);
    // Another account from the same address is not held back by this one's failures.
    const other = await signUp(server, "bystander");
    expect((await signIn(other.email, other.password)).status).toBe(200);

    nextMinute();
    expect((await signIn(user.email, user.password)).status).toBe(200);
  });

  it("backs off for longer once an account has failed many times within the hour", async () => {
    nextMinute();
    const victim = await signUp(server, "persistent");
    const [short, long] = ATTEMPT_RULES["sign-in"].subject;
    for (let failed = 0; failed < long!.limit; ) {
      for (let i = 0; i < short!.limit && failed < long!.limit; i++, failed++) {
        expect((await signIn(victim.email, `guess ${failed}`)).status).toBe(401);
      }
      nextMinute();
    }
    const refused = await signIn(victim.email, victim.password);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(60);
  });

  it("refuses an address that guesses across many accounts", async () => {
    clock.advance(2 * 60 * 60_000);
    const limit = ATTEMPT_RULES["sign-in"].address[0]!.limit;
    for (let i = 0; i < limit; i++) expect((await signIn(uniqueEmail("nobody"), "guess")).status).toBe(401);
    expect((await signIn(uniqueEmail("nobody"), "guess")).status).toBe(429);
    expect((await signIn(user.email, user.password)).status).toBe(429);
  });
});

describe("sign-up", () => {
  it("is paced per address, email_taken answers included", async () => {
    clock.advance(2 * 60 * 60_000);
    const limit = ATTEMPT_RULES["sign-up"].address[0]!.limit;
    const attempt = (email: string) =>
      call(SignedUp, `${server.url}/api/auth/sign-up`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: { email, password: "correct horse battery", name: "Probe" },
      });
    for (let i = 0; i < limit; i++) {
      const res = await attempt(i % 2 === 0 ? user.email : uniqueEmail("probe"));
      expect(res.status).toBe(i % 2 === 0 ? 400 : 201);
    }
    expectError(await attempt(uniqueEmail("probe")), 429, {
      type: "rate_limit_error",
      code: "rate_limit_exceeded",
    });
  });
});

describe("share-link passwords", () => {
  it("are throttled per link: after ten wrong passwords even the right one waits", async () => {
    clock.advance(2 * 60 * 60_000);
    const key = await mintApiKey(server, user, ["*"]);
    const { evaluation } = await runningEvaluation(server, bearer(key), {
      extra: { shareAccess: "PASSWORD_PROTECTED", sharePassword: "open sesame" },
    });
    const limit = ATTEMPT_RULES["share-password"].subject[0]!.limit;
    for (let i = 0; i < limit; i++) {
      const res = await startPublicRater(server, evaluation.shareToken, { password: `guess ${i}` });
      expect(res.body).toMatchObject({ error: { code: "share_password_incorrect" } });
    }
    const refused = await startPublicRater(server, evaluation.shareToken, { password: "open sesame" });
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({ error: { type: "rate_limit_error", code: "rate_limit_exceeded" } });
    nextMinute();
    expect((await startPublicRater(server, evaluation.shareToken, { password: "open sesame" })).status).toBe(
      201,
    );
  });

  it("must be at least 8 characters", async () => {
    const key = await mintApiKey(server, user, ["*"]);
    const res = await call(z.never(), `${server.api}/evaluations`, {
      method: "POST",
      headers: bearer(key),
      body: {
        name: "Short password",
        type: "SSE",
        shareAccess: "PASSWORD_PROTECTED",
        sharePassword: "1234",
        designUrls: [{ url: "https://example.com" }],
      },
    });
    expectError(res, 400, {
      type: "invalid_request_error",
      code: "parameter_invalid",
      param: "sharePassword",
    });
  });
});

describe("password hashes", () => {
  it("made at an older cost are replaced at the next successful sign-in", async () => {
    clock.advance(2 * 60 * 60_000);
    const stored = async () =>
      (await server.database.db.select().from(users).where(eq(users.id, user.userId)))[0]!.passwordHash!;
    expect(await stored()).toMatch(/^scrypt\$4096\$8\$1\$/);
    setPasswordHashCost(13);
    try {
      expect((await signIn(user.email, user.password)).status).toBe(200);
      expect(await stored()).toMatch(/^scrypt\$8192\$8\$1\$/);
      expect((await signIn(user.email, user.password)).status).toBe(200);
    } finally {
      setPasswordHashCost(12);
    }
  });
});
