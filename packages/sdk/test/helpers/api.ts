import { randomBytes } from "node:crypto";
import { startTestServer, TEST_SECRETS, type TestServer } from "@rubricon/api/testing";
import { setTeamPlan } from "@rubricon/core";

export { startTestServer, type TestServer };

export interface TestAccount {
  email: string;
  userId: string;
  teamId: string;
  cookie: string;
  /** An API key with every scope. */
  apiKey: string;
  /** Mints another key on the same team with the given scopes. */
  mintKey(scopes: string[]): Promise<string>;
}

/**
 * Signs a new user up (which gives them a team of their own), puts the team on the Pro plan so that the
 * Free plan's monthly evaluation quota does not cut tests short, and mints an API key with every scope.
 */
export async function createAccount(server: TestServer): Promise<TestAccount> {
  const email = `sdk-${randomBytes(5).toString("hex")}@example.com`;
  const signUp = await fetch(`${server.url}/api/auth/sign-up`, {
    method: "POST",
    headers: { "Content-Type": "application/json", Origin: server.url },
    body: JSON.stringify({ email, password: "correct horse battery", name: "SDK" }),
  });
  if (signUp.status !== 201) throw new Error(`sign-up failed: ${signUp.status} ${await signUp.text()}`);
  const { user, teamId } = (await signUp.json()) as { user: { id: string }; teamId: string };
  const cookie = signUp.headers.getSetCookie()[0]!.split(";")[0]!;
  const { services } = server.app;
  await setTeamPlan({ db: services.db, clock: services.clock, baseUrl: services.env.baseUrl }, teamId, "pro");
  // Keys are minted with the dashboard session: an API key cannot mint keys.
  const mintKey = async (scopes: string[]) => {
    const res = await fetch(`${server.api}/api-keys`, {
      method: "POST",
      headers: { Cookie: cookie, Origin: server.url, "Content-Type": "application/json" },
      body: JSON.stringify({ name: "sdk test", scopes }),
    });
    if (res.status !== 201) throw new Error(`key mint failed: ${res.status} ${await res.text()}`);
    return ((await res.json()) as { key: string }).key;
  };
  return { email, userId: user.id, teamId, cookie, apiKey: await mintKey(["*"]), mintKey };
}

/** An OAuth access token as the authorization server issues it (HS256, audience the API root). */
export async function signAccessToken(
  server: TestServer,
  claims: { sub: string; team: string; scope: string },
): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");
  const input = `${encode({ alg: "HS256", typ: "JWT" })}.${encode({
    ...claims,
    aud: server.api,
    iat: now,
    exp: now + 600,
  })}`;
  const key = await crypto.subtle.importKey(
    "raw",
    new TextEncoder().encode(TEST_SECRETS.OAUTH_JWT_SECRET),
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign"],
  );
  const signature = await crypto.subtle.sign("HMAC", key, new TextEncoder().encode(input));
  return `${input}.${Buffer.from(signature).toString("base64url")}`;
}
