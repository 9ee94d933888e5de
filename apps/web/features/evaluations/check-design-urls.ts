"use server";

import { publicUrlsOnly } from "@rubricon/agents/network";
import { headers } from "next/headers";
import { processApp } from "@/lib/api-handler";

/** At most this many URLs per check; the form rarely has more, and each may cost a DNS lookup. */
const MAX_URLS = 50;

const isPublicUrl = publicUrlsOnly();

/**
 * The design URLs an autouser run would refuse on this deployment, checked with the very policy the runs use
 * (`publicUrlsOnly`: the host must resolve only to public addresses), so the new-evaluation form can warn before
 * the evaluation is made. People can still rate such pages; only autousers cannot open them. Signed-in callers only:
 * the check resolves host names.
 */
export async function refusedDesignUrls(urls: string[]): Promise<string[]> {
  if (process.env.AUTOUSER_ALLOW_PRIVATE_URLS === "true") return [];
  const incoming = await headers();
  const cookie = incoming.get("cookie");
  if (!cookie) return [];
  const rubricon = await processApp();
  const whoami = await rubricon.handle(
    new Request("http://internal/api/v1/auth/whoami", { headers: { cookie } }),
  );
  if (whoami.status !== 200) return [];
  const candidates = [...new Set(urls.map((u) => u.trim()).filter(Boolean))].slice(0, MAX_URLS);
  const verdicts = await Promise.all(
    candidates.map(async (url) => ({ url, allowed: await isPublicUrl(url) })),
  );
  return verdicts.filter((v) => !v.allowed && /^https?:\/\//i.test(v.url)).map((v) => v.url);
}
