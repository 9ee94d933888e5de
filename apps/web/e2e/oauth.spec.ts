import { expect, test } from "@playwright/test";
import * as oauth from "oauth4webapi";
import { confirmDialog, signUp } from "./helpers";

const insecure = { [oauth.allowInsecureRequests]: true };
/** The app's callback: nothing listens there; the browser's request to it is caught and answered here. */
const REDIRECT = "http://127.0.0.1:9/callback";

test("a third-party app registers, the user consents on the dashboard, the app calls the API, refreshes, and is disconnected", async ({
  page,
  baseURL,
}) => {
  await signUp(page);

  const issuer = new URL(baseURL!);
  const as = await oauth.processDiscoveryResponse(
    issuer,
    await oauth.discoveryRequest(issuer, { algorithm: "oauth2", ...insecure }),
  );
  const client = await oauth.processDynamicClientRegistrationResponse(
    await oauth.dynamicClientRegistrationRequest(
      as,
      { client_name: "Acme Sync", redirect_uris: [REDIRECT], token_endpoint_auth_method: "none" },
      insecure,
    ),
  );

  const verifier = oauth.generateRandomCodeVerifier();
  const state = oauth.generateRandomState();
  const authorize = new URL(as.authorization_endpoint!);
  authorize.search = new URLSearchParams({
    client_id: client.client_id,
    redirect_uri: REDIRECT,
    response_type: "code",
    scope: "evaluations:read templates:read",
    code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
    code_challenge_method: "S256",
    state,
    resource: `${baseURL}/api/v1`,
  }).toString();

  let callback: URL | undefined;
  await page.route(`${REDIRECT}**`, (route) => {
    callback = new URL(route.request().url());
    return route.fulfill({ status: 200, contentType: "text/plain", body: "Acme Sync received the code." });
  });

  await page.goto(authorize.toString());
  await expect(page).toHaveURL(/\/oauth\/consent\/[\w-]+$/);
  await expect(page.getByRole("heading", { name: "Authorize Acme Sync" })).toBeVisible();
  await expect(page.getByText("127.0.0.1:9")).toBeVisible();
  const permissions = page.getByRole("list", { name: "Requested permissions" });
  await expect(permissions).toContainText("See your evaluations, their comparisons and results");
  await expect(permissions).toContainText("See your templates");
  await expect(page.getByLabel("Team")).toBeVisible();
  await page.screenshot({ path: test.info().outputPath("oauth-consent.png"), fullPage: true });
  await page.getByRole("button", { name: "Allow" }).click();
  await expect(page.getByText("Acme Sync received the code.")).toBeVisible();
  expect(callback).toBeDefined();

  const params = oauth.validateAuthResponse(as, client, callback!, state);
  const tokens = await oauth.processAuthorizationCodeResponse(
    as,
    client,
    await oauth.authorizationCodeGrantRequest(as, client, oauth.None(), params, REDIRECT, verifier, insecure),
  );
  const whoami = (token: string) =>
    fetch(`${baseURL}/api/v1/auth/whoami`, { headers: { Authorization: `Bearer ${token}` } });
  const me = await whoami(tokens.access_token);
  expect(me.status).toBe(200);
  expect(await me.json()).toMatchObject({ principal: "oauth" });

  const refreshed = await oauth.processRefreshTokenResponse(
    as,
    client,
    await oauth.refreshTokenGrantRequest(as, client, oauth.None(), tokens.refresh_token!, insecure),
  );
  const evaluations = await fetch(`${baseURL}/api/v1/evaluations`, {
    headers: { Authorization: `Bearer ${refreshed.access_token}` },
  });
  expect(evaluations.status).toBe(200);

  await page.goto("/connected-apps");
  const row = page.getByRole("row", { name: /Acme Sync/ });
  await expect(row).toContainText("evaluations:read");
  await page.getByRole("button", { name: "Disconnect Acme Sync" }).click();
  await confirmDialog(page, "Disconnect");
  await expect(page.getByText("No apps are connected.")).toBeVisible();

  expect((await whoami(refreshed.access_token)).status).toBe(401);
  await expect(
    oauth.processRefreshTokenResponse(
      as,
      client,
      await oauth.refreshTokenGrantRequest(as, client, oauth.None(), refreshed.refresh_token!, insecure),
    ),
  ).rejects.toMatchObject({ error: "invalid_grant" });
});

test("the design-tool plugin pairs by a code the user approves on the dashboard", async ({
  page,
  baseURL,
}) => {
  await signUp(page);
  const started = await fetch(`${baseURL}/api/v1/auth/figma/pair`, { method: "POST" });
  expect(started.status).toBe(201);
  const { code, pollingSecret, verificationUrl } = await started.json();
  const poll = () =>
    fetch(`${baseURL}/api/v1/auth/figma/pair/${code}/poll`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ pollingSecret }),
    }).then((r) => r.json());
  expect((await poll()).status).toBe("pending");

  await page.goto(verificationUrl);
  await expect(page.getByLabel("Pairing code")).toHaveValue(code);
  await page.getByRole("button", { name: "Approve" }).click();
  await expect(page.getByText("Paired. Return to the plugin")).toBeVisible();

  const approved = await poll();
  expect(approved.status).toBe("approved");
  const me = await fetch(`${baseURL}/api/v1/auth/whoami`, {
    headers: { Authorization: `Bearer ${approved.token}` },
  });
  expect(await me.json()).toMatchObject({ principal: "plugin" });
});
