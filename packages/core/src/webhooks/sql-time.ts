import { type SQL, sql } from "drizzle-orm";

/** A timestamp parameter for raw SQL: both drivers take the ISO text, and the cast leaves no doubt about its type. */
export function ts(date: Date): SQL {
  return sql`${date.toISOString()}::timestamptz`;
}
