import { createTestDatabase, type TestDatabase } from "@rubricon/db/testing";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { inJsonbOrder } from "../src/evaluation/ratings/serialize";

/*
 * A new rating's event is built from the values it was inserted with (`asStoredRating`), so its records must come
 * out in the order Postgres' jsonb keeps their keys. Postgres itself is the reference here.
 */
let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase();
}, 240_000);
afterAll(async () => {
  await database?.dispose();
});

async function storedOrder(record: Record<string, number>): Promise<string[]> {
  const rows = (await database.db.execute(
    sql`select (${JSON.stringify(record)}::jsonb)::text as t`,
  )) as unknown as { t: string }[] | { rows: { t: string }[] };
  const [row] = Array.isArray(rows) ? rows : rows.rows;
  return Object.keys(JSON.parse(row!.t));
}

/** A deterministic pseudo-random generator, so a failure can be replayed. */
function lcg(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

describe("keys in jsonb's order", () => {
  it("matches Postgres for ASCII keys, non-ASCII keys and a mix, and keeps a single key's object", async () => {
    const random = lcg(7);
    const ascii = "aAbBzZ09_-~ ";
    const other = ["é", "日", "ß", "€", "😀", "Ω"];
    const key = (alphabet: string[]) =>
      Array.from(
        { length: 1 + Math.floor(random() * 4) },
        () => alphabet[Math.floor(random() * alphabet.length)],
      ).join("");
    for (let round = 0; round < 60; round++) {
      const alphabet = round % 3 === 0 ? [...ascii] : round % 3 === 1 ? other : [...ascii, ...other];
      const record: Record<string, number> = {};
      for (let i = 0; i < 6; i++) record[key(alphabet)] = i;
      const ordered = inJsonbOrder(record);
      expect(Object.keys(ordered), JSON.stringify(record)).toEqual(await storedOrder(record));
      expect(ordered).toEqual(record);
    }
    const one = { only: 1 };
    expect(inJsonbOrder(one)).toBe(one);
  });
});
