import { type Db, oauthRecords } from "@rubricon/db";
import { and, eq, gt, isNull, or } from "drizzle-orm";

/** One record of the authorization server, as `oauth_records` keeps it: `key` is the id, or its hash. */
export interface OAuthRecordValues {
  model: string;
  key: string;
  payload: Record<string, unknown>;
  grantId: string | null;
  uid: string | null;
  expiresAt: Date | null;
}

export interface StoredOAuthRecord {
  key: string;
  payload: unknown;
  consumedAt: Date | null;
}

/**
 * The authorization server's storage: one row per record in `oauth_records`, by model and key. The adapter that
 * speaks the server's interface (and hashes and seals what it stores) lives with the server, in the API.
 */
export function oauthRecordStore(db: Db, now: () => Date) {
  const live = () => or(isNull(oauthRecords.expiresAt), gt(oauthRecords.expiresAt, now()));
  const byKey = (model: string, key: string) => and(eq(oauthRecords.model, model), eq(oauthRecords.key, key));
  return {
    async upsert(values: OAuthRecordValues): Promise<void> {
      await db
        .insert(oauthRecords)
        .values(values)
        .onConflictDoUpdate({
          target: [oauthRecords.model, oauthRecords.key],
          set: {
            payload: values.payload,
            grantId: values.grantId,
            uid: values.uid,
            expiresAt: values.expiresAt,
          },
        });
    },

    /** The live (unexpired) record of `model` under `key`. */
    async find(model: string, key: string): Promise<Omit<StoredOAuthRecord, "key"> | undefined> {
      const [row] = await db
        .select({ payload: oauthRecords.payload, consumedAt: oauthRecords.consumedAt })
        .from(oauthRecords)
        .where(and(byKey(model, key), live()));
      return row;
    },

    /** The live record of `model` with this `uid`. */
    async findByUid(model: string, uid: string): Promise<StoredOAuthRecord | undefined> {
      const [row] = await db
        .select({ key: oauthRecords.key, payload: oauthRecords.payload, consumedAt: oauthRecords.consumedAt })
        .from(oauthRecords)
        .where(and(eq(oauthRecords.model, model), eq(oauthRecords.uid, uid), live()));
      return row;
    },

    async consume(model: string, key: string): Promise<void> {
      await db.update(oauthRecords).set({ consumedAt: now() }).where(byKey(model, key));
    },

    async destroy(model: string, key: string): Promise<void> {
      await db.delete(oauthRecords).where(byKey(model, key));
    },

    async revokeByGrantId(model: string, grantId: string): Promise<void> {
      await db
        .delete(oauthRecords)
        .where(and(eq(oauthRecords.model, model), eq(oauthRecords.grantId, grantId)));
    },
  };
}
