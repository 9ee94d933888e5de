import { ComparisonList, Rating } from "@rubricon/contracts";
import { z } from "zod";
import { createEvaluation, expectStatus } from "./assertions";
import { type Answer, call } from "./clients";
import type { TestServer } from "./server";

/** A Running evaluation with `count` comparisons, ready to be rated. */
export async function runningEvaluation(
  server: TestServer,
  headers: Record<string, string>,
  opts: { type?: "SSE" | "SxS"; count?: number; extra?: Record<string, unknown> } = {},
) {
  const type = opts.type ?? "SSE";
  const count = opts.count ?? 2;
  const items = Array.from({ length: count }, (_, i) => i);
  const evaluation = await createEvaluation(server.api, headers, {
    name: `Rated ${type}`,
    type,
    status: "Running",
    ...(type === "SSE"
      ? { designUrls: items.map((i) => ({ url: `https://example.com/${i}`, label: `Design ${i}` })) }
      : {
          comparisonPairs: items.map((i) => ({
            currentUrl: `https://example.com/a${i}`,
            variantUrl: `https://example.com/b${i}`,
            label: `Pair ${i}`,
          })),
        }),
    ...opts.extra,
  });
  const list = await call(
    ComparisonList,
    `${server.api}/evaluations/${evaluation.id}/comparisons?limit=100`,
    {
      headers,
    },
  );
  expectStatus(list, 200);
  const comparisonIds = list.body.data.sort((a, b) => a.position - b.position).map((c) => c.id);
  return { evaluation, comparisonIds };
}

/** What starting a public rater answers; the share page's own entry point, outside the API contract. */
export const PublicRaterStarted = z.object({
  object: z.literal("public_rater"),
  id: z.string(),
  name: z.string().nullable(),
});

/** Starts a public rater on a share link and answers the cookie that identifies it. */
export async function startPublicRater(
  server: TestServer,
  token: string,
  body: Record<string, unknown> = {},
): Promise<Answer<z.output<typeof PublicRaterStarted>> & { cookie: string | null }> {
  const res = await call(PublicRaterStarted, `${server.url}/api/share/${token}/start`, {
    method: "POST",
    headers: { "Content-Type": "application/json", Origin: server.url },
    body,
  });
  const setCookie = res.headers.getSetCookie()[0];
  return { ...res, cookie: setCookie ? setCookie.split(";")[0]! : null };
}

export function shareRate(server: TestServer, token: string, cookie: string | null, body: unknown) {
  return call(Rating, `${server.url}/api/share/${token}/ratings`, {
    method: "POST",
    headers: {
      "Content-Type": "application/json",
      Origin: server.url,
      ...(cookie ? { Cookie: cookie } : {}),
    },
    body,
  });
}
