import type { ExtraConfigColumn } from "drizzle-orm/pg-core";

/**
 * Index columns for a list read newest first. Lists order by `... DESC`, which Postgres reads as NULLS FIRST, and
 * the planner takes an index's order only when the nulls placement matches too (even on NOT NULL columns): a
 * `DESC NULLS LAST` index left every list to a full scan and a sort. Read backwards, the same index serves the
 * ascending order of `ending_before` pages.
 */
export const newestFirst = (...columns: ExtraConfigColumn[]) => columns.map((c) => c.desc().nullsFirst());
