import { request as httpRequest, type IncomingMessage } from "node:http";
import { request as httpsRequest } from "node:https";
import { isIP } from "node:net";
import { isPublicAddress } from "@rubricon/agents/network";
import type { LinkPreview } from "@rubricon/contracts";
import {
  ApiError,
  BlockedAddressError,
  BoundedMap,
  type Clock,
  guardedLookup,
  hostOf,
  type Resolver,
  systemClock,
} from "../../kernel";
import { readPageMeta } from "./page-meta";

export const LINK_PREVIEW_TIMEOUT_MS = 5_000;
export const LINK_PREVIEW_MAX_BYTES = 1024 * 1024;
export const LINK_PREVIEW_CACHE_MS = 60 * 60 * 1000;
const MAX_REDIRECTS = 3;

export interface LinkPreviewOptions {
  /** Local development and tests: loopback and private addresses may be fetched (as for webhooks). */
  allowPrivate: boolean;
  resolve?: Resolver;
  clock?: Clock;
}

const unavailable = (message: string) => new ApiError("link_preview_unavailable", message, { param: "url" });

function parseTarget(raw: string, allowPrivate: boolean): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw ApiError.invalid("url", "`url` must be an absolute http(s) URL.");
  }
  if (url.protocol !== "https:" && url.protocol !== "http:")
    throw ApiError.invalid("url", "`url` must use http or https.");
  if (url.username || url.password)
    throw ApiError.invalid("url", "`url` must not carry a user name or password.");
  const host = hostOf(url);
  if (!allowPrivate && isIP(host) && !isPublicAddress(host))
    throw unavailable(
      `${host} is a private, loopback or link-local address; only public pages are previewed.`,
    );
  return url;
}

/** One GET with the address guard at connect time; answers the response with the body not yet read. */
function get(url: URL, opts: LinkPreviewOptions, signal: AbortSignal): Promise<IncomingMessage> {
  const request = url.protocol === "https:" ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = request(url, {
      method: "GET",
      signal,
      headers: { Accept: "text/html,application/xhtml+xml", "User-Agent": "RubriconLinkPreview/1.0" },
      ...(opts.allowPrivate ? {} : { lookup: guardedLookup(opts.resolve) }),
    });
    req.on("response", resolve);
    req.on("error", reject);
    req.end();
  });
}

async function readCapped(res: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of res as AsyncIterable<Buffer>) {
    const room = LINK_PREVIEW_MAX_BYTES - size;
    chunks.push(chunk.subarray(0, room));
    size += Math.min(chunk.length, room);
    // The head is what matters; a page past the cap is read only that far.
    if (size >= LINK_PREVIEW_MAX_BYTES) {
      res.destroy();
      break;
    }
  }
  return Buffer.concat(chunks).toString("utf8");
}

async function fetchPage(start: URL, opts: LinkPreviewOptions): Promise<{ url: string; html: string }> {
  const signal = AbortSignal.timeout(LINK_PREVIEW_TIMEOUT_MS);
  let url = start;
  try {
    for (let hop = 0; ; hop++) {
      const res = await get(url, opts, signal);
      const status = res.statusCode ?? 0;
      if (status >= 300 && status < 400 && res.headers.location) {
        res.resume();
        if (hop >= MAX_REDIRECTS) throw unavailable("The page redirects too many times.");
        // Every hop is checked as the first was: a public page may not redirect into a private network.
        url = parseTarget(new URL(res.headers.location, url).toString(), opts.allowPrivate);
        continue;
      }
      if (status < 200 || status >= 300) {
        res.resume();
        throw unavailable(`The page answered ${status}.`);
      }
      const type = String(res.headers["content-type"] ?? "");
      if (!/^(text\/html|application\/xhtml\+xml)/i.test(type)) {
        res.resume();
        throw unavailable(`The page is not HTML (${type || "no content type"}).`);
      }
      return { url: url.toString(), html: await readCapped(res) };
    }
  } catch (err) {
    if (err instanceof ApiError) throw err;
    if (err instanceof BlockedAddressError)
      throw unavailable(`${err.message}; only public pages are previewed.`);
    if (signal.aborted)
      throw unavailable(`The page did not answer within ${LINK_PREVIEW_TIMEOUT_MS / 1000} s.`);
    throw unavailable("The page could not be fetched.");
  }
}

/**
 * Title, description, image and site name of a public page (a Figma or prototype link), fetched through the
 * same address guard as webhooks (no private addresses, redirects re-checked, 5 s, 1 MB) and kept per URL for
 * an hour, refusals included, so a preview is fetched at most once an hour however often it is asked for.
 */
export class LinkPreviewer {
  private readonly cache = new BoundedMap<string, { at: number; result: LinkPreview | ApiError }>(2000);

  constructor(private readonly opts: LinkPreviewOptions) {}

  async preview(raw: string): Promise<LinkPreview> {
    const clock = this.opts.clock ?? systemClock;
    const url = parseTarget(raw.trim(), this.opts.allowPrivate);
    const key = url.toString();
    const now = clock.now().getTime();
    const cached = this.cache.get(key);
    if (cached && now - cached.at < LINK_PREVIEW_CACHE_MS) {
      if (cached.result instanceof ApiError) throw cached.result;
      return cached.result;
    }
    let result: LinkPreview | ApiError;
    try {
      const page = await fetchPage(url, this.opts);
      result = {
        object: "link_preview",
        url: page.url,
        ...readPageMeta(page.html, page.url),
        fetchedAt: new Date(now).toISOString(),
      };
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      result = err;
    }
    this.cache.set(key, { at: now, result });
    if (result instanceof ApiError) throw result;
    return result;
  }
}
