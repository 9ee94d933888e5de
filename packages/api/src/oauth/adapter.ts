import { decryptSecret, encryptSecret, oauthRecordStore, sha256Hex } from "@rubricon/core";
import type { Db } from "@rubricon/db";
import type { Adapter, AdapterPayload } from "oidc-provider";

/** Records whose id is the credential itself: only its hash is a key, and the id never lands in the payload. */
const HASHED_MODELS = new Set([
  "AccessToken",
  "AuthorizationCode",
  "RefreshToken",
  "ClientCredentials",
  "RegistrationAccessToken",
  "InitialAccessToken",
  "DeviceCode",
  "BackchannelAuthenticationRequest",
  "PushedAuthorizationRequest",
]);

/** Every model oidc-provider stores, named by its class (`Session`, `AccessToken`, …). */
const MODELS = new Set([...HASHED_MODELS, "Session", "Grant", "Client", "Interaction", "ReplayDetection"]);

const SEALED = "sealed:";

/** The authorization server's storage on Postgres: one row per record in `oauth_records` (core's record store). */
export function postgresAdapter(db: Db, encryptionKey: string, now: () => Date) {
  const store = oauthRecordStore(db, now);
  return class PostgresAdapter implements Adapter {
    private readonly hashed: boolean;

    constructor(private readonly model: string) {
      // The provider names each model by its class's `name`: a bundle that renamed the classes would store every
      // record under one empty kind, where a code passes for a refresh token and lifetimes are lost. Refuse it.
      if (!MODELS.has(model))
        throw new Error(`oidc-provider asked to store an unknown model ${JSON.stringify(model)}`);
      this.hashed = HASHED_MODELS.has(model);
    }

    private key(id: string): string {
      return this.hashed ? sha256Hex(id) : id;
    }

    private seal(payload: AdapterPayload): AdapterPayload {
      const stored: AdapterPayload = { ...payload };
      if (this.hashed) delete stored.jti;
      if (this.model === "Client" && typeof stored.client_secret === "string")
        stored.client_secret = SEALED + encryptSecret(stored.client_secret, encryptionKey);
      return stored;
    }

    private open(id: string, row: { payload: unknown; consumedAt: Date | null }): AdapterPayload {
      const payload = { ...(row.payload as AdapterPayload) };
      if (this.hashed) payload.jti = id;
      if (typeof payload.client_secret === "string" && payload.client_secret.startsWith(SEALED))
        payload.client_secret = decryptSecret(payload.client_secret.slice(SEALED.length), encryptionKey);
      if (row.consumedAt) payload.consumed = Math.floor(row.consumedAt.getTime() / 1000);
      return payload;
    }

    async upsert(id: string, payload: AdapterPayload, expiresIn?: number): Promise<void> {
      const expiresAt = expiresIn ? new Date(now().getTime() + expiresIn * 1000) : null;
      const values = {
        model: this.model,
        key: this.key(id),
        payload: this.seal(payload),
        grantId: payload.grantId ?? null,
        uid: payload.uid ?? null,
        expiresAt,
      };
      await store.upsert(values);
    }

    async find(id: string): Promise<AdapterPayload | undefined> {
      const row = await store.find(this.model, this.key(id));
      return row ? this.open(id, row) : undefined;
    }

    async findByUid(uid: string): Promise<AdapterPayload | undefined> {
      const row = await store.findByUid(this.model, uid);
      // Only sessions are looked up by uid, and they are keyed by their own id.
      return row ? this.open(row.key, row) : undefined;
    }

    async findByUserCode(): Promise<undefined> {
      return undefined;
    }

    async consume(id: string): Promise<void> {
      await store.consume(this.model, this.key(id));
    }

    async destroy(id: string): Promise<void> {
      await store.destroy(this.model, this.key(id));
    }

    async revokeByGrantId(grantId: string): Promise<void> {
      await store.revokeByGrantId(this.model, grantId);
    }
  };
}
