import { expect, type Page } from "@playwright/test";
import * as oauth from "oauth4webapi";

export const insecure = { [oauth.allowInsecureRequests]: true };
/** The app's callback: nothing listens there; the browser's request to it is caught and answered here. */
export const REDIRECT = "http://127.0.0.1:9/callback";

export interface AuthorizedApp {
  as: oauth.AuthorizationServer;
  client: oauth.Client;
  /** Undefined with `exchange: false`. */
  tokens: oauth.TokenEndpointResponse;
  /** The authorization code (spent once the tokens were fetched). */
  code: string;
}

/**
 * A third-party app as oauth4webapi drives it: discovery, registration, the authorization request with PKCE, the
 * signed-in user's consent on the dashboard's page (in `page`), the code exchange.
 */
export async function authorizeApp(
  page: Page,
  baseURL: string,
  opts: { clientName: string; scope: string; resource: string; client?: oauth.Client; exchange?: boolean },
): Promise<AuthorizedApp> {
  const issuer = new URL(baseURL);
  const as = await oauth.processDiscoveryResponse(
    issuer,
    await oauth.discoveryRequest(issuer, { algorithm: "oauth2", ...insecure }),
  );
  const client =
    opts.client ??
    (await oauth.processDynamicClientRegistrationResponse(
      await oauth.dynamicClientRegistrationRequest(
        as,
        { client_name: opts.clientName, redirect_uris: [REDIRECT], token_endpoint_auth_method: "none" },
        insecure,
      ),
    ));
  const verifier = oauth.generateRandomCodeVerifier();
  const state = oauth.generateRandomState();
  const authorize = new URL(as.authorization_endpoint!);
  authorize.search = new URLSearchParams({
    client_id: client.client_id,
    redirect_uri: REDIRECT,
    response_type: "code",
    scope: opts.scope,
    code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
    code_challenge_method: "S256",
    state,
    resource: opts.resource,
  }).toString();

  let callback: URL | undefined;
  await page.route(`${REDIRECT}**`, (route) => {
    callback = new URL(route.request().url());
    return route.fulfill({
      status: 200,
      contentType: "text/plain",
      body: `${opts.clientName} received the code.`,
    });
  });
  await page.goto(authorize.toString());
  await expect(page).toHaveURL(/\/oauth\/consent\/[\w-]+$/);
  await expect(page.getByRole("heading", { name: `Authorize ${opts.clientName}` })).toBeVisible();
  await page.getByRole("button", { name: "Allow" }).click();
  await expect(page.getByText(`${opts.clientName} received the code.`)).toBeVisible();
  expect(callback).toBeDefined();

  await page.unroute(`${REDIRECT}**`);
  const params = oauth.validateAuthResponse(as, client, callback!, state);
  const code = params.get("code")!;
  if (opts.exchange === false) return { as, client, code, tokens: undefined as never };
  const tokens = await oauth.processAuthorizationCodeResponse(
    as,
    client,
    await oauth.authorizationCodeGrantRequest(as, client, oauth.None(), params, REDIRECT, verifier, insecure),
  );
  return { as, client, tokens, code };
}

/** The claims of a JWT access token, unverified (the test reads what the server put in it). */
export function claimsOf(token: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(token.split(".")[1]!, "base64url").toString("utf8"));
}
