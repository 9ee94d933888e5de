import { chmodSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import envPaths from "env-paths";
import { UsageError } from "./errors";

export interface OAuthCredentials {
  clientId: string;
  accessToken: string;
  refreshToken?: string | undefined;
  /** Unix milliseconds. */
  expiresAt: number;
  tokenEndpoint: string;
  revocationEndpoint?: string | undefined;
}

export interface Profile {
  /** The server's origin or API root. */
  baseUrl?: string | undefined;
  apiKey?: string | undefined;
  oauth?: OAuthCredentials | undefined;
  /** The team the credential acts on, as whoami last reported it. */
  teamId?: string | undefined;
  /** What `rubricon listen` signs with, kept so a local receiver's configuration survives restarts. */
  listenSecret?: string | undefined;
}

export interface ConfigFile {
  profiles: Record<string, Profile>;
}

export const DEFAULT_PROFILE = "default";

/** `RUBRICON_CONFIG_DIR`, else the platform's config folder (`~/.config/rubricon` on Linux). */
export function configPath(): string {
  const dir = process.env.RUBRICON_CONFIG_DIR?.trim() || envPaths("rubricon", { suffix: "" }).config;
  return join(dir, "config.json");
}

export function readConfig(path = configPath()): ConfigFile {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return { profiles: {} };
    throw new UsageError(`Cannot read the config file ${path}: ${(err as Error).message}`);
  }
  try {
    const parsed = JSON.parse(text) as Partial<ConfigFile>;
    return { profiles: parsed.profiles && typeof parsed.profiles === "object" ? parsed.profiles : {} };
  } catch {
    throw new UsageError(`The config file ${path} is not valid JSON; fix or delete it.`);
  }
}

/**
 * Writes the file with mode 0600 in a 0700 folder: it holds API keys and refresh tokens. The new content goes
 * to a temporary file renamed over the old one, so a crash never leaves half a file.
 */
export function writeConfig(config: ConfigFile, path = configPath()): void {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const temp = `${path}.${process.pid}.tmp`;
  writeFileSync(temp, `${JSON.stringify(config, null, 2)}\n`, { mode: 0o600 });
  chmodSync(temp, 0o600);
  renameSync(temp, path);
}

export function updateProfile(name: string, change: (profile: Profile) => Profile | undefined): void {
  const config = readConfig();
  const next = change(config.profiles[name] ?? {});
  if (next === undefined) delete config.profiles[name];
  else config.profiles[name] = next;
  writeConfig(config);
}
