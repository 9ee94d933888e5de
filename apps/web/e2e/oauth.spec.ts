import { expect, test } from "@playwright/test";
import * as oauth from "oauth4webapi";
import { confirmDialog, signUp } from "./helpers";
import { authorizeApp, claimsOf, insecure } from "./oauth-flow";

test("a third-party app registers, the user consents on the dashboard, the app calls the API, refreshes, and is disconnected", async ({
  page,
  baseURL,
}) => {
  await signUp(page);
  const { as, client, tokens, code } = await authorizeApp(page, baseURL!, {
    clientName: "Acme Sync",
    scope: "evaluations:read templates:read",
    resource: `${baseURL}/api/v1`,
  });

  // An access token says when it ends, in the token response and in its own claims.
  expect(tokens.expires_in).toBeGreaterThan(0);
  const claims = claimsOf(tokens.access_token);
  expect(claims.exp).toBe((claims.iat as number) + tokens.expires_in!);
  // An authorization code, spent or not, is no refresh token: that would skip the PKCE verifier.
  const asRefreshToken = async (value: string) => {
    const res = await fetch(as.token_endpoint!, {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        grant_type: "refresh_token",
        refresh_token: value,
        client_id: client.client_id,
      }),
    });
    return { status: res.status, body: await res.json() };
  };
  expect(await asRefreshToken(code)).toMatchObject({ status: 400, body: { error: "invalid_grant" } });
  const fresh = await authorizeApp(page, baseURL!, {
    clientName: "Acme Sync",
    scope: "evaluations:read",
    resource: `${baseURL}/api/v1`,
    client,
    exchange: false,
  });
  expect(await asRefreshToken(fresh.code)).toMatchObject({ status: 400, body: { error: "invalid_grant" } });

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
