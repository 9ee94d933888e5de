import { expect } from "vitest";
import { call } from "./clients";

export const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

export type CallResult = Awaited<ReturnType<typeof call>>;

/** Asserts the spec's error envelope, including `request_id` equal to the `X-Request-Id` header. */
export function expectError(
  res: CallResult,
  status: number,
  expected: { type: string; code?: string; param?: string },
): void {
  expect({ status: res.status, error: res.body?.error }).toMatchObject({
    status,
    error: expected,
  });
  expect(typeof res.body.error.message).toBe("string");
  const requestId = res.headers.get("x-request-id");
  expect(requestId).toMatch(UUID_V7);
  expect(res.body.error.request_id).toBe(requestId);
}

export const SSE_BODY = {
  name: "Checkout flow",
  type: "SSE",
  designUrls: [{ url: "https://example.com/a" }],
} as const;

export async function createEvaluation(
  api: string,
  headers: Record<string, string>,
  body: Record<string, unknown> = SSE_BODY,
  // biome-ignore lint/suspicious/noExplicitAny: response bodies are asserted field by field
): Promise<{ id: string; [k: string]: any }> {
  const res = await call(`${api}/evaluations`, {
    method: "POST",
    headers,
    body,
  });
  if (res.status !== 201)
    throw new Error(`create evaluation failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}
