import { Rubricon } from "@rubricon/sdk";
import { DEFAULT_PROFILE, type OAuthCredentials, type Profile, readConfig, updateProfile } from "./config";
import { UsageError } from "./errors";

export interface GlobalOptions {
  apiKey?: string | undefined;
  baseUrl?: string | undefined;
  profile?: string | undefined;
  json?: boolean | undefined;
}

export const DEFAULT_ORIGIN = "http://localhost:3000";

export function profileName(opts: GlobalOptions): string {
  return opts.profile ?? process.env.RUBRICON_PROFILE?.trim() ?? DEFAULT_PROFILE;
}

export function loadProfile(opts: GlobalOptions): Profile {
  return readConfig().profiles[profileName(opts)] ?? {};
}

/** The API root (`.../api/v1`) from `--base-url`, `RUBRICON_BASE_URL`, the profile, or the local default. */
export function apiRoot(opts: GlobalOptions, profile: Profile = loadProfile(opts)): string {
  const raw = opts.baseUrl ?? env("RUBRICON_BASE_URL") ?? profile.baseUrl ?? DEFAULT_ORIGIN;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UsageError(`The base URL "${raw}" is not a URL; give one like https://rubricon.example.com.`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new UsageError(`The base URL must be http or https, not ${url.protocol}`);
  }
  const path = url.pathname.replace(/\/+$/, "");
  url.pathname = path === "" ? "/api/v1" : path;
  url.search = "";
  url.hash = "";
  return url.toString().replace(/\/+$/, "");
}

/** The server's origin, where the dashboard and the authorization server live. */
export function originOf(root: string): string {
  return new URL(root).origin;
}

function env(name: string): string | undefined {
  const value = process.env[name]?.trim();
  return value ? value : undefined;
}

export type Credential =
  | { kind: "api_key"; apiKey: string; source: string }
  | { kind: "oauth"; accessToken: string; source: string };

/** `--api-key`, then `RUBRICON_API_KEY`, then the profile's key, then its OAuth sign-in (refreshed if due). */
export async function resolveCredential(opts: GlobalOptions): Promise<Credential | undefined> {
  if (opts.apiKey) return { kind: "api_key", apiKey: opts.apiKey, source: "--api-key" };
  const fromEnv = env("RUBRICON_API_KEY");
  if (fromEnv) return { kind: "api_key", apiKey: fromEnv, source: "RUBRICON_API_KEY" };
  const name = profileName(opts);
  const profile = loadProfile(opts);
  if (profile.apiKey) return { kind: "api_key", apiKey: profile.apiKey, source: `profile ${name}` };
  if (profile.oauth) {
    const fresh = await freshOAuth(name, profile.oauth);
    return { kind: "oauth", accessToken: fresh.accessToken, source: `profile ${name} (signed in)` };
  }
  return undefined;
}

// Refresh a little early so a token does not expire between the check and the request.
const REFRESH_MARGIN_MS = 60_000;

async function freshOAuth(name: string, creds: OAuthCredentials): Promise<OAuthCredentials> {
  if (creds.expiresAt - REFRESH_MARGIN_MS > Date.now()) return creds;
  if (!creds.refreshToken) {
    throw new UsageError(`The sign-in of profile ${name} has expired; run \`rubricon login\` again.`);
  }
  const { refreshTokens } = await import("./oauth");
  const next = await refreshTokens(creds);
  updateProfile(name, (p) => ({ ...p, oauth: next }));
  return next;
}

export interface ClientContext {
  client: Rubricon;
  apiRoot: string;
  credential: Credential;
}

export async function createClient(opts: GlobalOptions): Promise<ClientContext> {
  const profile = loadProfile(opts);
  const root = apiRoot(opts, profile);
  const credential = await resolveCredential(opts);
  if (!credential) {
    throw new UsageError(
      "Not signed in: run `rubricon login`, or pass --api-key (or set RUBRICON_API_KEY) with a key from the dashboard.",
    );
  }
  const client = new Rubricon({
    baseUrl: root,
    ...(credential.kind === "api_key"
      ? { apiKey: credential.apiKey }
      : { accessToken: credential.accessToken }),
    defaultHeaders: { "User-Agent": `rubricon-cli` },
  });
  return { client, apiRoot: root, credential };
}
