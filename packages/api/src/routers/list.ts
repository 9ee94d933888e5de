import type { RequestContext } from "../request/context";

export const LEGACY_CURSOR_SUNSET = new Date("2027-04-04T00:00:00Z");

/** The shared list envelope; flags the legacy `cursor` parameter as deprecated on the response. */
export function toList<T extends { id: string }>(
  ctx: RequestContext,
  page: {
    data: T[];
    hasMore: boolean;
    usedLegacyCursor: boolean;
    totalCount?: number;
  },
) {
  if (page.usedLegacyCursor) {
    ctx.response.headers.Deprecation = "true";
    ctx.response.headers.Sunset = LEGACY_CURSOR_SUNSET.toUTCString();
  }
  const last = page.data.at(-1);
  return {
    object: "list" as const,
    data: page.data,
    has_more: page.hasMore,
    ...(last ? { next_cursor: last.id } : {}),
    ...(page.totalCount !== undefined ? { total_count: page.totalCount } : {}),
  };
}
