import { randomInt, timingSafeEqual } from "node:crypto";
import { type Db, pluginPairings } from "@rubricon/db";
import { and, eq, isNull, lt } from "drizzle-orm";
import type { Actor, CoreContext } from "../../kernel";
import { ApiError, randomToken, sha256Hex } from "../../kernel";

export const PAIRING_TTL_MS = 10 * 60 * 1000;
/** No vowels (no words) and nothing read two ways (0/O, 1/I/L): 20^8 codes, short-lived and rate-limited. */
const ALPHABET = "BCDFGHJKMNPQRSTVWXZ2";
const CODE_LENGTH = 8;

function normalize(code: string): string {
  return code.toUpperCase().replace(/[\s-]/g, "");
}

function format(code: string): string {
  return `${code.slice(0, 4)}-${code.slice(4)}`;
}

/** Starts a pairing: the code the plugin shows its user, and the secret it polls with. Only hashes are kept. */
export async function startPairing(ctx: CoreContext) {
  const now = ctx.clock.now();
  // Expired pairings go as new ones come: the table never holds more than ten minutes of them.
  await ctx.db.delete(pluginPairings).where(lt(pluginPairings.expiresAt, now));
  let raw = "";
  for (let i = 0; i < CODE_LENGTH; i++) raw += ALPHABET[randomInt(ALPHABET.length)];
  const pollingSecret = randomToken(32);
  const expiresAt = new Date(now.getTime() + PAIRING_TTL_MS);
  await ctx.db.insert(pluginPairings).values({
    codeHash: sha256Hex(raw),
    pollSecretHash: sha256Hex(pollingSecret),
    expiresAt,
    createdAt: now,
  });
  return { code: format(raw), pollingSecret, expiresAt };
}

async function findPairing(db: Db, code: string, now: Date) {
  const [row] = await db
    .select()
    .from(pluginPairings)
    .where(eq(pluginPairings.codeHash, sha256Hex(normalize(code))));
  if (!row || row.redeemedAt)
    throw new ApiError("pairing_not_found", "No such pairing code; start pairing again from the plugin.", {
      param: "code",
    });
  if (row.expiresAt.getTime() <= now.getTime())
    throw new ApiError(
      "pairing_expired",
      "This pairing code has expired; start pairing again from the plugin.",
      {
        param: "code",
      },
    );
  return row;
}

/** The signed-in user approves a code: the plugin that polls with its secret then receives a token for them. */
export async function approvePairing(ctx: CoreContext, actor: Actor, code: string) {
  if (actor.principal !== "session")
    throw new ApiError("session_required", "A pairing is approved from a signed-in session only.");
  const now = ctx.clock.now();
  const row = await findPairing(ctx.db, code, now);
  if (row.userId && row.userId !== actor.userId)
    throw new ApiError("pairing_not_found", "No such pairing code; start pairing again from the plugin.", {
      param: "code",
    });
  await ctx.db
    .update(pluginPairings)
    .set({ userId: actor.userId, approvedAt: now })
    .where(and(eq(pluginPairings.codeHash, row.codeHash), isNull(pluginPairings.userId)));
  return { object: "plugin_pairing" as const, code: format(normalize(code)), status: "approved" as const };
}

/**
 * The plugin asks whether its code was approved. Pending until then; once approved the pairing is redeemed in the
 * same statement that reads it, so exactly one poll receives the user, and the code is spent.
 */
export async function pollPairing(
  ctx: CoreContext,
  code: string,
  pollingSecret: string,
): Promise<{ status: "pending" } | { status: "approved"; userId: string }> {
  const now = ctx.clock.now();
  const row = await findPairing(ctx.db, code, now);
  const given = Buffer.from(sha256Hex(pollingSecret));
  if (!timingSafeEqual(given, Buffer.from(row.pollSecretHash)))
    throw new ApiError("pairing_not_found", "No such pairing code; start pairing again from the plugin.", {
      param: "code",
    });
  if (!row.userId) return { status: "pending" };
  const [redeemed] = await ctx.db
    .update(pluginPairings)
    .set({ redeemedAt: now })
    .where(and(eq(pluginPairings.codeHash, row.codeHash), isNull(pluginPairings.redeemedAt)))
    .returning({ userId: pluginPairings.userId });
  if (!redeemed?.userId)
    throw new ApiError("pairing_not_found", "No such pairing code; start pairing again from the plugin.", {
      param: "code",
    });
  return { status: "approved", userId: redeemed.userId };
}
