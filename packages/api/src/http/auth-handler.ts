import { SignInInput, SignUpInput } from "@rubricon/contracts";
import {
  ApiError,
  authenticatePassword,
  createSession,
  createUser,
  deleteSession,
  SESSION_TTL_MS,
} from "@rubricon/core";
import { AttemptThrottle } from "../limits/attempts";
import { type AppServices, newTeamPlan } from "../request/context";
import { assertSameOrigin } from "../request/csrf";
import type { EntryPoint } from "../request/exchange";
import { clearedSessionCookie, readCookie, SESSION_COOKIE, sessionCookie } from "./cookies";
import { parseJsonBody } from "./json-body";
import { jsonReply } from "./reply";

export const AUTH_PREFIX = "/api/auth";
/** An email, a password and a name fit in far less; nothing larger reaches the password hash. */
const AUTH_BODY_LIMIT = 16 * 1024;
const ACTIONS = new Set(["/sign-up", "/sign-in", "/sign-out"]);

/** Email and password sign-in for the dashboard: `/api/auth/sign-up`, `/sign-in`, `/sign-out`. */
export function createAuthEntry(services: AppServices): EntryPoint {
  const core = () => ({
    db: services.db,
    clock: services.clock,
    baseUrl: services.env.baseUrl,
    newTeamPlan: newTeamPlan(services.env),
  });
  // Secure cookies wherever the site is served over https (every real deployment); plain http only locally.
  const secure = services.env.baseUrl.startsWith("https://");
  const attempts = new AttemptThrottle(services);
  const cookie = (token: string) =>
    sessionCookie(token, {
      secure,
      maxAgeSeconds: Math.floor(SESSION_TTL_MS / 1000),
    });

  return {
    prefix: AUTH_PREFIX,
    async handle(ex) {
      ex.headers["Cache-Control"] = "no-store";
      const { req } = ex;
      const action = ex.url.pathname.slice(AUTH_PREFIX.length).replace(/\/+$/, "");
      if (!ACTIONS.has(action)) {
        throw new ApiError(
          "route_not_found",
          `Unrecognized request URL (${req.method} ${AUTH_PREFIX}${action}).`,
        );
      }
      if (req.method !== "POST") {
        ex.headers.Allow = "POST";
        throw new ApiError("method_not_allowed", `${req.method} is not allowed here; use POST.`);
      }
      // Login CSRF: a browser form on another site must not sign a victim in or out.
      if (req.headers.get("origin") || req.headers.get("referer"))
        assertSameOrigin(req, services.env.baseUrl);

      if (action === "/sign-up") {
        const input = await parseJsonBody(ex, SignUpInput, AUTH_BODY_LIMIT);
        // Every sign-up counts: `email_taken` tells whether an address has an account, so it is paced too.
        await attempts.consume("sign-up", null, ex.ctx.clientIp, ex.requestId);
        const { user, teamId } = await createUser(core(), input);
        const session = await createSession(core(), user.id);
        ex.cookies.push(cookie(session.token));
        return jsonReply(ex, 201, {
          object: "session",
          user: { id: user.id, email: user.email, name: user.name },
          teamId,
        });
      }
      if (action === "/sign-in") {
        const input = await parseJsonBody(ex, SignInInput, AUTH_BODY_LIMIT);
        const account = input.email.trim().toLowerCase();
        await attempts.check("sign-in", account, ex.ctx.clientIp, ex.requestId);
        const user = await authenticatePassword(services.db, input.email, input.password).catch(
          async (err) => {
            if (err instanceof ApiError && err.code === "invalid_credentials")
              await attempts.record("sign-in", account, ex.ctx.clientIp, ex.requestId);
            throw err;
          },
        );
        const session = await createSession(core(), user.id);
        ex.cookies.push(cookie(session.token));
        return jsonReply(ex, 200, {
          object: "session",
          user: { id: user.id, email: user.email, name: user.name },
        });
      }
      const token = readCookie(req.headers.get("cookie"), SESSION_COOKIE);
      if (token) await deleteSession(services.db, token);
      ex.cookies.push(clearedSessionCookie(secure));
      return jsonReply(ex, 200, { object: "session", signedOut: true });
    },
  };
}
