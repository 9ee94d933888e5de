import * as oauth from "oauth4webapi";
import { expect } from "vitest";
import { z } from "zod";
import { expectStatus } from "./assertions";
import { call, sessionHeaders, type TestUser } from "./clients";
import type { TestServer } from "./server";

export const insecure = { [oauth.allowInsecureRequests]: true };
/** The app's callback: nothing listens there, the tests read the redirect instead of following it. */
export const REDIRECT = "http://127.0.0.1:9/callback";

export interface OAuthFlow {
  details: unknown;
  callback: URL;
  state: string;
  verifier: string;
}

function cookiesOf(res: Response): string {
  return res.headers
    .getSetCookie()
    .map((c) => c.split(";")[0]!)
    .join("; ");
}

/**
 * A third-party app as oauth4webapi drives it against a test server: discovery, registration, the authorization
 * redirect (the user's consent given through the consent page's API, as the dashboard does), the code exchange.
 */
export class OAuthApp {
  private constructor(
    readonly server: TestServer,
    readonly as: oauth.AuthorizationServer,
  ) {}

  static async discover(server: TestServer): Promise<OAuthApp> {
    const issuer = new URL(server.url);
    const as = await oauth.processDiscoveryResponse(
      issuer,
      await oauth.discoveryRequest(issuer, { algorithm: "oauth2", ...insecure }),
    );
    return new OAuthApp(server, as);
  }

  async register(metadata: Partial<oauth.Client> = {}): Promise<oauth.Client> {
    const res = await oauth.dynamicClientRegistrationRequest(
      this.as,
      {
        client_name: "Acme Sync",
        redirect_uris: [REDIRECT],
        token_endpoint_auth_method: "none",
        ...metadata,
      },
      insecure,
    );
    return oauth.processDynamicClientRegistrationResponse(res);
  }

  async authorize(
    client: oauth.Client,
    who: TestUser,
    opts: { resource?: string; scope?: string; teamId?: string; decision?: "allow" | "deny" } = {},
  ): Promise<OAuthFlow> {
    const { server } = this;
    const verifier = oauth.generateRandomCodeVerifier();
    const state = oauth.generateRandomState();
    const url = new URL(this.as.authorization_endpoint!);
    url.searchParams.set("client_id", client.client_id);
    url.searchParams.set("redirect_uri", REDIRECT);
    url.searchParams.set("response_type", "code");
    url.searchParams.set("scope", opts.scope ?? "evaluations:read templates:read");
    url.searchParams.set("code_challenge", await oauth.calculatePKCECodeChallenge(verifier));
    url.searchParams.set("code_challenge_method", "S256");
    url.searchParams.set("state", state);
    url.searchParams.set("resource", opts.resource ?? `${server.url}/api/v1`);
    const start = await fetch(url, { redirect: "manual", headers: { Cookie: who.cookie } });
    expect(start.status).toBe(303);
    const consentPage = new URL(start.headers.get("location")!, server.url);
    expect(consentPage.pathname).toMatch(/^\/oauth\/consent\/[\w-]+$/);
    const uid = consentPage.pathname.split("/").pop()!;
    const details = await call(z.any(), `${server.url}/api/oauth/interaction/${uid}`, {
      headers: sessionHeaders(server, who),
    });
    expectStatus(details, 200);
    const decided = await call(
      z.object({ redirectTo: z.string() }),
      `${server.url}/api/oauth/interaction/${uid}`,
      {
        method: "POST",
        headers: sessionHeaders(server, who),
        body: { decision: opts.decision ?? "allow", ...(opts.teamId ? { teamId: opts.teamId } : {}) },
      },
    );
    expectStatus(decided, 200);
    const back = await fetch(decided.body.redirectTo, {
      redirect: "manual",
      headers: { Cookie: `${who.cookie}; ${cookiesOf(start)}` },
    });
    expect(back.status).toBe(303);
    return { details: details.body, callback: new URL(back.headers.get("location")!), state, verifier };
  }

  async exchange(client: oauth.Client, flow: OAuthFlow, auth = oauth.None()) {
    const params = oauth.validateAuthResponse(this.as, client, flow.callback, flow.state);
    const res = await oauth.authorizationCodeGrantRequest(
      this.as,
      client,
      auth,
      params,
      REDIRECT,
      flow.verifier,
      insecure,
    );
    return oauth.processAuthorizationCodeResponse(this.as, client, res);
  }

  async refresh(client: oauth.Client, refreshToken: string, auth = oauth.None()) {
    return oauth.processRefreshTokenResponse(
      this.as,
      client,
      await oauth.refreshTokenGrantRequest(this.as, client, auth, refreshToken, insecure),
    );
  }

  /** Registers, authorizes and exchanges in one go: an access token of `who` for `resource`. */
  async token(who: TestUser, opts: { resource?: string; scope?: string } = {}) {
    const client = await this.register();
    return this.exchange(client, await this.authorize(client, who, opts));
  }
}
