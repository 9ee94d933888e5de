import { createHash, randomBytes } from "node:crypto";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import type { OAuthCredentials } from "./config";
import { UsageError } from "./errors";

interface ServerMetadata {
  authorization_endpoint: string;
  token_endpoint: string;
  registration_endpoint?: string;
  revocation_endpoint?: string;
}

interface TokenResponse {
  access_token: string;
  refresh_token?: string;
  expires_in?: number;
}

/** An OAuth failure: the server refused, or answered something unexpected. Exits 1 like an API error. */
export class OAuthError extends Error {
  override readonly name = "OAuthError";
  constructor(
    message: string,
    readonly code?: string,
    readonly requestId?: string,
  ) {
    super(message);
  }
}

async function readJson<T>(res: Response, what: string): Promise<T> {
  const text = await res.text();
  let body: Record<string, unknown> = {};
  try {
    body = JSON.parse(text) as Record<string, unknown>;
  } catch {
    // Not JSON: reported below with the status.
  }
  if (!res.ok) {
    const code = typeof body.error === "string" ? body.error : undefined;
    const description =
      typeof body.error_description === "string" ? body.error_description : text.slice(0, 200);
    throw new OAuthError(
      `${what} failed (HTTP ${res.status}): ${description}`,
      code,
      res.headers.get("x-request-id") ?? undefined,
    );
  }
  return body as T;
}

export async function discover(origin: string): Promise<ServerMetadata> {
  let res: Response;
  try {
    res = await fetch(`${origin}/.well-known/oauth-authorization-server`);
  } catch (err) {
    throw new OAuthError(`Cannot reach ${origin}: ${(err as Error).message}`);
  }
  return readJson<ServerMetadata>(res, "Reading the authorization server's metadata");
}

function base64url(bytes: Buffer): string {
  return bytes.toString("base64url");
}

function credentialsFrom(
  tokens: TokenResponse,
  base: Omit<OAuthCredentials, "accessToken" | "expiresAt" | "refreshToken">,
  previousRefresh?: string,
): OAuthCredentials {
  return {
    ...base,
    accessToken: tokens.access_token,
    refreshToken: tokens.refresh_token ?? previousRefresh,
    expiresAt: Date.now() + (tokens.expires_in ?? 900) * 1000,
  };
}

export interface LoginOptions {
  origin: string;
  apiRoot: string;
  scope: string;
  openBrowser: boolean;
  /** Where the URL to open is shown. */
  say: (text: string) => void;
  timeoutMs?: number;
}

/**
 * OAuth 2.1 authorization code with PKCE (S256) and a loopback redirect (RFC 8252): a one-off server on
 * 127.0.0.1 receives the code. The CLI registers itself with that exact redirect (RFC 7591), since the port is
 * chosen by the system at each sign-in.
 */
export async function login(opts: LoginOptions): Promise<OAuthCredentials> {
  const metadata = await discover(opts.origin);
  if (!metadata.registration_endpoint) {
    throw new OAuthError(
      "This server does not allow apps to register, so the CLI cannot sign in; use an API key.",
    );
  }
  const state = base64url(randomBytes(16));
  const verifier = base64url(randomBytes(32));
  const challenge = base64url(createHash("sha256").update(verifier).digest());

  let deliver: (result: { code?: string; error?: string }) => void = () => {};
  const received = new Promise<{ code?: string; error?: string }>((resolve) => {
    deliver = resolve;
  });
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    if (url.pathname !== "/callback") {
      res.writeHead(404).end();
      return;
    }
    if (url.searchParams.get("state") !== state) {
      res
        .writeHead(400, { "Content-Type": "text/plain" })
        .end("This sign-in link is not the one the CLI started.");
      return;
    }
    const error = url.searchParams.get("error");
    const code = url.searchParams.get("code");
    res
      .writeHead(200, { "Content-Type": "text/html; charset=utf-8" })
      .end(
        `<!doctype html><meta charset="utf-8"><title>Rubricon CLI</title><p>${
          error
            ? "Sign-in was not completed. You can close this tab."
            : "Signed in. You can close this tab and return to the terminal."
        }</p>`,
      );
    deliver(
      error ? { error: url.searchParams.get("error_description") ?? error } : { code: code ?? undefined },
    );
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const redirectUri = `http://127.0.0.1:${(server.address() as AddressInfo).port}/callback`;

  try {
    const client = await readJson<{ client_id: string }>(
      await fetch(metadata.registration_endpoint, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({
          client_name: "Rubricon CLI",
          redirect_uris: [redirectUri],
          token_endpoint_auth_method: "none",
          grant_types: ["authorization_code", "refresh_token"],
          response_types: ["code"],
        }),
      }),
      "Registering the CLI",
    );

    const authorize = new URL(metadata.authorization_endpoint);
    authorize.search = new URLSearchParams({
      response_type: "code",
      client_id: client.client_id,
      redirect_uri: redirectUri,
      scope: opts.scope,
      state,
      code_challenge: challenge,
      code_challenge_method: "S256",
      resource: opts.apiRoot,
    }).toString();

    opts.say(`Open this address to sign in:\n${authorize.toString()}`);
    if (opts.openBrowser) {
      try {
        const { default: open } = await import("open");
        await open(authorize.toString());
      } catch {
        opts.say("(Could not open a browser; open the address above yourself.)");
      }
    }

    const timeoutMs = opts.timeoutMs ?? 5 * 60_000;
    let timer: NodeJS.Timeout | undefined;
    const result = await Promise.race([
      received,
      new Promise<never>((_, reject) => {
        timer = setTimeout(
          () =>
            reject(
              new OAuthError(
                `No sign-in within ${Math.round(timeoutMs / 1000)} s; run \`rubricon login\` again.`,
              ),
            ),
          timeoutMs,
        );
      }),
    ]).finally(() => clearTimeout(timer));
    if (result.error || !result.code)
      throw new OAuthError(`Sign-in refused: ${result.error ?? "no code returned"}`);

    const tokens = await readJson<TokenResponse>(
      await fetch(metadata.token_endpoint, {
        method: "POST",
        headers: { "Content-Type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({
          grant_type: "authorization_code",
          code: result.code,
          redirect_uri: redirectUri,
          client_id: client.client_id,
          code_verifier: verifier,
        }),
      }),
      "Exchanging the sign-in code",
    );
    return credentialsFrom(tokens, {
      clientId: client.client_id,
      tokenEndpoint: metadata.token_endpoint,
      revocationEndpoint: metadata.revocation_endpoint,
    });
  } finally {
    server.close();
    server.closeAllConnections();
  }
}

/** Each refresh answers a new refresh token (rotation); the old one must not be used again. */
export async function refreshTokens(creds: OAuthCredentials): Promise<OAuthCredentials> {
  if (!creds.refreshToken)
    throw new UsageError("The sign-in has no refresh token; run `rubricon login` again.");
  const tokens = await readJson<TokenResponse>(
    await fetch(creds.tokenEndpoint, {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        grant_type: "refresh_token",
        refresh_token: creds.refreshToken,
        client_id: creds.clientId,
      }),
    }),
    "Refreshing the sign-in (run `rubricon login` again if it keeps failing)",
  );
  return credentialsFrom(
    tokens,
    {
      clientId: creds.clientId,
      tokenEndpoint: creds.tokenEndpoint,
      revocationEndpoint: creds.revocationEndpoint,
    },
    creds.refreshToken,
  );
}

/** Revokes the refresh token, which ends the grant; failures are reported but do not stop a logout. */
export async function revoke(creds: OAuthCredentials): Promise<boolean> {
  if (!creds.revocationEndpoint || !creds.refreshToken) return false;
  try {
    const res = await fetch(creds.revocationEndpoint, {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        token: creds.refreshToken,
        token_type_hint: "refresh_token",
        client_id: creds.clientId,
      }),
    });
    return res.ok;
  } catch {
    return false;
  }
}
