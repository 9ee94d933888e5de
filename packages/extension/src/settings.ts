import { normalizeServer, type Pairing } from "@rubricon/client-kit";

declare const __RUBRICON_SERVER__: string;

/** The server the build was made for; the options page can point the extension elsewhere. */
export const DEFAULT_SERVER: string = __RUBRICON_SERVER__;

export interface Stored {
  server?: string;
  token?: string;
  tokenExpiresAt?: string | null;
  /** A pairing started in an earlier opening of the popup, resumed when it opens again. */
  pairing?: Pairing;
  /** The Draft evaluation the next "Add" goes to. */
  evaluationId?: string;
}

export async function load(): Promise<Stored> {
  return (await chrome.storage.local.get(null)) as Stored;
}

export async function save(values: Partial<Stored>): Promise<void> {
  await chrome.storage.local.set(values);
}

export async function forget(keys: (keyof Stored)[]): Promise<void> {
  await chrome.storage.local.remove(keys);
}

export async function serverOf(stored?: Stored): Promise<string> {
  return normalizeServer((stored ?? (await load())).server ?? DEFAULT_SERVER);
}

/** The permission pattern for a server's origin. */
export function originPattern(server: string): string {
  return `${normalizeServer(server)}/*`;
}
