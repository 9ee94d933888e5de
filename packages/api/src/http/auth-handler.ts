import { SignInInput, SignUpInput } from "@rubricon/contracts";
import {
  ApiError,
  authenticatePassword,
  createSession,
  createUser,
  deleteSession,
  SESSION_TTL_MS,
} from "@rubricon/core";
import type { AppServices } from "../trpc/context";
import { clearedSessionCookie, readCookie, SESSION_COOKIE, sessionCookie } from "./cookies";
import { assertSameOrigin } from "./csrf";
import { toApiError, toErrorEnvelope } from "./error-envelope";
import { parseJsonBody } from "./json-body";
import { uuidv7 } from "./request-id";

export const AUTH_PREFIX = "/api/auth";

/** Email and password sign-in for the dashboard: `/api/auth/sign-up`, `/sign-in`, `/sign-out`. */
export function createAuthHandler(services: AppServices) {
  const core = () => ({
    db: services.db,
    clock: services.clock,
    baseUrl: services.env.baseUrl,
  });
  // Secure cookies wherever the site is served over https (every real deployment); plain http only locally.
  const secure = services.env.baseUrl.startsWith("https://");
  const cookie = (token: string) =>
    sessionCookie(token, {
      secure,
      maxAgeSeconds: Math.floor(SESSION_TTL_MS / 1000),
    });

  return async function handleAuth(req: Request): Promise<Response> {
    const requestId = uuidv7();
    const headers = new Headers({
      "X-Request-Id": requestId,
      "Content-Type": "application/json; charset=utf-8",
      "Cache-Control": "no-store",
    });
    try {
      const action = new URL(req.url).pathname.slice(AUTH_PREFIX.length).replace(/\/+$/, "");
      if (!["/sign-up", "/sign-in", "/sign-out"].includes(action)) {
        throw new ApiError(
          "route_not_found",
          `Unrecognized request URL (${req.method} ${AUTH_PREFIX}${action}).`,
        );
      }
      if (req.method !== "POST") {
        headers.set("Allow", "POST");
        throw new ApiError("method_not_allowed", `${req.method} is not allowed here; use POST.`);
      }
      // Login CSRF: a browser form on another site must not sign a victim in or out.
      if (req.headers.get("origin") || req.headers.get("referer"))
        assertSameOrigin(req, services.env.baseUrl);

      if (action === "/sign-up") {
        const input = await parseJsonBody(req, SignUpInput);
        const { user, teamId } = await createUser(core(), input);
        const session = await createSession(core(), user.id);
        headers.append("Set-Cookie", cookie(session.token));
        return new Response(
          JSON.stringify({
            object: "session",
            user: { id: user.id, email: user.email, name: user.name },
            teamId,
          }),
          {
            status: 201,
            headers,
          },
        );
      }
      if (action === "/sign-in") {
        const input = await parseJsonBody(req, SignInInput);
        const user = await authenticatePassword(services.db, input.email, input.password);
        const session = await createSession(core(), user.id);
        headers.append("Set-Cookie", cookie(session.token));
        return new Response(
          JSON.stringify({
            object: "session",
            user: { id: user.id, email: user.email, name: user.name },
          }),
          {
            status: 200,
            headers,
          },
        );
      }
      const token = readCookie(req.headers.get("cookie"), SESSION_COOKIE);
      if (token) await deleteSession(services.db, token);
      headers.append("Set-Cookie", clearedSessionCookie(secure));
      return new Response(JSON.stringify({ object: "session", signedOut: true }), { status: 200, headers });
    } catch (err) {
      const { error, unexpected } = toApiError(err);
      if (unexpected) console.error(`[${requestId}] ${req.method} ${req.url} failed:`, err);
      return new Response(JSON.stringify(toErrorEnvelope(error, requestId)), {
        status: error.status,
        headers,
      });
    }
  };
}
