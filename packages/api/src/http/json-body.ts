import type { z } from "zod";
import type { Exchange } from "../request/exchange";
import { assertStorableText } from "../request/text-input";
import { toApiError } from "./error-envelope";

/**
 * The JSON body of a request outside the tRPC surface (sign-in, share links), validated by `schema` and capped at
 * `limit` bytes; an empty body counts as `{}`, so a missing field is named rather than reported as bad JSON.
 */
export async function parseJsonBody<T extends z.ZodType>(
  ex: Exchange,
  schema: T,
  limit: number,
): Promise<z.infer<T>> {
  const raw = await ex.readJson(limit);
  assertStorableText(raw);
  const result = schema.safeParse(raw);
  if (!result.success) throw toApiError(result.error, raw).error;
  return result.data;
}
