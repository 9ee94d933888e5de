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
  /** Why no browser is opened when `openBrowser` is false but the caller did not ask for that (no display). */
  noBrowserReason?: string;
  /** The loopback port of the callback; 0 lets the system choose. */
  port?: number;
  /** Where the URL to open is shown. */
  say: (text: string) => void;
  timeoutMs?: number;
}

/**
 * Why a browser cannot be opened here, or undefined when one can: on Linux and the BSDs a browser needs an X or
 * Wayland display, and over SSH a browser would open on the remote machine, not in front of the user.
 */
export function noDisplayReason(
  env: NodeJS.ProcessEnv = process.env,
  platform: NodeJS.Platform = process.platform,
): string | undefined {
  if (env.SSH_CONNECTION || env.SSH_TTY) return "this is an SSH session";
  if (platform === "darwin" || platform === "win32" || env.WSL_DISTRO_NAME) return undefined;
  if (!env.DISPLAY && !env.WAYLAND_DISPLAY)
    return "no display is set (DISPLAY and WAYLAND_DISPLAY are empty)";
  return undefined;
}

async function listenLoopback(server: ReturnType<typeof createServer>, port: number): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    server.once("error", (err: NodeJS.ErrnoException) =>
      reject(
        new OAuthError(
          err.code === "EADDRINUSE"
            ? `Port ${port} on 127.0.0.1 is in use; choose another with --port, or leave --port out.`
            : `Cannot listen on 127.0.0.1:${port} for the sign-in: ${err.message}`,
        ),
      ),
    );
    server.listen(port, "127.0.0.1", resolve);
  });
  return (server.address() as AddressInfo).port;
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
  const port = await listenLoopback(server, opts.port ?? 0);
  const redirectUri = `http://127.0.0.1:${port}/callback`;

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

    const timeoutMs = opts.timeoutMs ?? 5 * 60_000;
    const waiting = `${Math.round(timeoutMs / 1000)} s`;
    opts.say(`Open this address to sign in:\n${authorize.toString()}`);
    if (opts.openBrowser) {
      opts.say("Opening it in a browser. (Without a browser here, run `rubricon login --no-browser`.)");
      try {
        const { default: open } = await import("open");
        await open(authorize.toString());
      } catch {
        opts.say("(Could not open a browser; open the address above yourself.)");
      }
    } else {
      if (opts.noBrowserReason) opts.say(`No browser was opened: ${opts.noBrowserReason}.`);
      opts.say(
        `The sign-in ends at ${redirectUri} on this machine. From a browser on another machine, forward that ` +
          `port first (ssh -L ${port}:127.0.0.1:${port} <this host>; --port <n> fixes the port), or keep an ` +
          "API key instead: rubricon login --api-key <key>.",
      );
    }
    opts.say(`Waiting up to ${waiting} for the sign-in (--timeout <seconds> changes it)…`);

    let timer: NodeJS.Timeout | undefined;
    const result = await Promise.race([
      received,
      new Promise<never>((_, reject) => {
        timer = setTimeout(
          () =>
            reject(
              new OAuthError(
                `No sign-in arrived at ${redirectUri} within ${waiting}. Run \`rubricon login\` again; without ` +
                  "a browser on this machine use --no-browser (with --port and an SSH tunnel), or " +
                  "`rubricon login --api-key <key>`.",
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
