import { expect } from "vitest";
import { createEvaluation } from "./assertions";
import { call } from "./clients";
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
  const list = await call(`${server.api}/evaluations/${evaluation.id}/comparisons?limit=100`, { headers });
  expect(list.status).toBe(200);
  const comparisonIds = (list.body.data as { id: string; position: number }[])
    .sort((a, b) => a.position - b.position)
    .map((c) => c.id);
  return { evaluation, comparisonIds };
}

/** Starts a public rater on a share link and answers the cookie that identifies it. */
export async function startPublicRater(
  server: TestServer,
  token: string,
  body: Record<string, unknown> = {},
): Promise<{ status: number; cookie: string | null; body: Record<string, unknown> }> {
  const res = await fetch(`${server.url}/api/share/${token}/start`, {
    method: "POST",
    headers: { "Content-Type": "application/json", Origin: server.url },
    body: JSON.stringify(body),
  });
  const setCookie = res.headers.getSetCookie()[0];
  return {
    status: res.status,
    cookie: setCookie ? setCookie.split(";")[0]! : null,
    body: (await res.json()) as Record<string, unknown>,
  };
}

export function shareRate(server: TestServer, token: string, cookie: string | null, body: unknown) {
  return call(`${server.url}/api/share/${token}/ratings`, {
    method: "POST",
    headers: {
      "Content-Type": "application/json",
      Origin: server.url,
      ...(cookie ? { Cookie: cookie } : {}),
    },
    body,
  });
}
