import { type LookupAddress, lookup } from "node:dns";
import { isIP } from "node:net";
import { isPublicAddress } from "@rubricon/agents/network";
import { ApiError } from "./errors";

/** Resolves a host name to every address it has, IPv4 and IPv6. */
export type Resolver = (host: string) => Promise<string[]>;

export const systemResolver: Resolver = (host) =>
  new Promise((resolve, reject) =>
    lookup(host, { all: true, verbatim: true }, (err, addresses) =>
      err ? reject(err) : resolve(addresses.map((a) => a.address)),
    ),
  );

/** The host of a URL without IPv6 brackets, as DNS and `net.isIP` want it. */
export function hostOf(url: URL): string {
  return url.hostname.replace(/^\[|\]$/g, "");
}

const invalid = (message: string) => new ApiError("webhook_url_invalid", message, { param: "url" });

/**
 * Refuses a URL whose host does not resolve, or resolves to any address that is not public: every address
 * counts, since a client may connect to any of them. `field` and `purpose` word the refusal for the caller.
 */
export async function assertPublicHost(
  url: URL,
  opts: { field: string; purpose: string; invalid: (message: string) => ApiError; resolve?: Resolver },
): Promise<void> {
  const host = hostOf(url);
  let addresses: string[];
  if (isIP(host)) {
    addresses = [host];
  } else {
    try {
      addresses = await (opts.resolve ?? systemResolver)(host);
    } catch {
      throw opts.invalid(`The host of \`${opts.field}\` (${host}) does not resolve.`);
    }
    if (addresses.length === 0)
      throw opts.invalid(`The host of \`${opts.field}\` (${host}) does not resolve.`);
  }
  const blocked = addresses.find((a) => !isPublicAddress(a));
  if (blocked !== undefined) {
    throw opts.invalid(
      `The host of \`${opts.field}\` resolves to ${blocked}, a private, loopback or link-local address; ${opts.purpose}.`,
    );
  }
}

/** How one kind of outbound URL is checked and how its refusals are worded. */
export interface OutboundUrlRules {
  /** The input field that holds the URL, as refusals name it. */
  field: string;
  /** An example of a valid URL, for the refusal of one that does not parse. */
  example: string;
  /** What to do instead of putting credentials in the URL. */
  instead: string;
  /** Why private hosts are refused. */
  purpose: string;
  /** Also refuse a query or fragment (a base URL that paths are appended to). */
  bare?: boolean;
  invalid: (message: string) => ApiError;
  /** Local development: plain http and private hosts are accepted. */
  allowPrivate: boolean;
  resolve?: Resolver;
}

/**
 * The one guard for every URL the server will call on a user's behalf (webhook endpoints, model provider base
 * URLs): https (http too with `allowPrivate`), no credentials, and a host that resolves only to public addresses;
 * every address counts, since a client may connect to any of them. Answers the parsed URL.
 */
export async function checkOutboundUrl(raw: string, rules: OutboundUrlRules): Promise<URL> {
  const { field, invalid } = rules;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw invalid(`\`${field}\` must be an absolute URL such as ${rules.example}.`);
  }
  const schemes = rules.allowPrivate ? ["https:", "http:"] : ["https:"];
  if (!schemes.includes(url.protocol)) {
    throw invalid(`\`${field}\` must use https; got ${url.protocol.replace(/:$/, "")}.`);
  }
  if (url.username || url.password) {
    throw invalid(`\`${field}\` must not carry a user name or password; ${rules.instead}.`);
  }
  if (rules.bare && (url.search || url.hash))
    throw invalid(`\`${field}\` must not carry a query or a fragment.`);
  if (rules.allowPrivate) return url;
  await assertPublicHost(url, { field, purpose: rules.purpose, invalid, resolve: rules.resolve });
  return url;
}

/** Checks a webhook endpoint URL (see `checkOutboundUrl`); answers the normalised URL. */
export async function checkWebhookUrl(
  raw: string,
  opts: { allowPrivate: boolean; resolve?: Resolver },
): Promise<string> {
  const url = await checkOutboundUrl(raw, {
    field: "url",
    example: "https://example.com/webhooks",
    instead: "authenticate with the signature instead",
    purpose: "webhooks go to public addresses only",
    invalid,
    ...opts,
  });
  return url.toString();
}

/** Raised by the delivery-time lookup; the attempt fails (and is retried) instead of reaching the address. */
export class BlockedAddressError extends Error {
  readonly code = "EBLOCKEDADDRESS";
  constructor(host: string, address: string) {
    super(`${host} resolved to ${address}, which is not a public address`);
    this.name = "BlockedAddressError";
  }
}

type LookupCallback = (
  err: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void;

/**
 * A `lookup` for `http.request` that refuses hosts resolving to any non-public address. Checking inside the
 * connection's own lookup (not before it) means a DNS answer that changes between the check and the connect
 * (rebinding) cannot slip through.
 */
export function guardedLookup(resolve: Resolver = systemResolver) {
  return (host: string, options: { all?: boolean } | number, callback: LookupCallback): void => {
    resolve(host).then(
      (addresses) => {
        const blocked = addresses.find((a) => !isPublicAddress(a));
        if (blocked !== undefined) return callback(new BlockedAddressError(host, blocked), "", 0);
        if (addresses.length === 0) {
          return callback(Object.assign(new Error(`${host} has no addresses`), { code: "ENOTFOUND" }), "", 0);
        }
        const all = addresses.map((address) => ({ address, family: isIP(address) }));
        if (typeof options === "object" && options.all) return callback(null, all);
        return callback(null, all[0]!.address, all[0]!.family);
      },
      (err: NodeJS.ErrnoException) => callback(err, "", 0),
    );
  };
}
