import { ApiError } from "@rubricon/core";
import type { z } from "zod";
import { toApiError } from "./error-envelope";

/**
 * The JSON body of a request outside the tRPC surface (sign-in, share links), validated by `schema`; an empty
 * body counts as `{}`, so a missing field is named rather than reported as bad JSON.
 */
export async function parseJsonBody<T extends z.ZodType>(req: Request, schema: T): Promise<z.infer<T>> {
  let raw: unknown;
  try {
    const text = await req.text();
    raw = text.trim() === "" ? {} : JSON.parse(text);
  } catch {
    throw new ApiError("invalid_json", "The request body is not valid JSON.");
  }
  const result = schema.safeParse(raw);
  if (!result.success) throw toApiError(result.error, raw).error;
  return result.data;
}
