import { Evaluation } from "@rubricon/contracts";
import { expect } from "vitest";
import { type Answer, type Answered, bodyOf, call, type Refused } from "./clients";

export const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** Asserts the spec's error envelope, including `request_id` equal to the `X-Request-Id` header. */
export function expectError(
  res: Answer<unknown>,
  status: number,
  expected: { type: string; code?: string; param?: string },
): asserts res is Refused {
  const error = res.ok ? undefined : res.body.error;
  expect({ status: res.status, error }).toMatchObject({
    status,
    error: expected,
  });
  expect(typeof error!.message).toBe("string");
  const requestId = res.headers.get("x-request-id");
  expect(requestId).toMatch(UUID_V7);
  expect(error!.request_id).toBe(requestId);
  // Every error links its code's row in the error-codes reference.
  expect(error!.doc_url).toMatch(new RegExp(`^https?://[^/]+/docs/errors#${error!.code}$`));
}

/** Asserts a success with `status`; a refusal fails with its error's message. */
export function expectStatus<T>(res: Answer<T>, status: number): asserts res is Answered<T> {
  expect(res.status, res.ok ? undefined : `${res.body.error.code}: ${res.body.error.message}`).toBe(status);
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
): Promise<Evaluation> {
  const res = await call(Evaluation, `${api}/evaluations`, {
    method: "POST",
    headers,
    body,
  });
  if (res.status !== 201)
    throw new Error(`create evaluation failed: ${res.status} ${JSON.stringify(res.body)}`);
  return bodyOf(res);
}
