import type { PageQuery, RaterType, Rating, RatingSubmission, SharePermission } from "@rubricon/contracts";
import {
  commitWithLast,
  comparisons,
  type DbOrTx,
  evaluationRatingRevisions,
  evaluations,
  hotStatement,
  newId,
  type Params,
  ratings,
  violatedUniqueIndex,
} from "@rubricon/db";
import { and, eq, inArray, sql } from "drizzle-orm";
import type { Actor, CoreContext } from "../../kernel";
import { ApiError, paginate, recordTombstone, together } from "../../kernel";
import {
  countAhead,
  emitEvent,
  readTotalAhead,
  recordUsage,
  subscribersAhead,
  teamPlan,
  UsageNearLimit,
} from "../../platform";
import { evaluationNotFound, loadEvaluationAccess, loadVisibleEvaluation } from "../evaluations/access";
import { deadlinePassed, endEvaluation, targetReached } from "../evaluations/lifecycle";
import type { EvaluationRow } from "../evaluations/serialize";
import { REVISION_SHARDS } from "../results/cache";
import { loadStatsTemplates } from "../results/load";
import { hasActiveRuns } from "../run-queue/finish";
import { asStoredRating, type RatingRow, toRating } from "./serialize";
import { validateDimensionRatings } from "./validate";

export type Rater =
  | { type: "user"; userId: string }
  | { type: "public"; publicRaterId: string }
  | { type: "autouser"; autouserId: string; autouserRunId: string | null };

function raterKey(rater: Rater): string {
  switch (rater.type) {
    case "user":
      return rater.userId;
    case "public":
      return rater.publicRaterId;
    case "autouser":
      return rater.autouserId;
  }
}

function notRunning(row: EvaluationRow): ApiError {
  const why =
    row.status === "Draft"
      ? "is a Draft; start it (status Running) before rating"
      : `has ${row.status === "Ended" ? "ended" : "been archived"} and is read-only`;
  return new ApiError("evaluation_not_running", `Evaluation ${row.id} ${why}.`);
}

/**
 * Locks the evaluation for a change to its ratings and bumps its ratings revision (which invalidates cached
 * results). Deletes take this exclusive lock; new ratings share the row (see `lockForRating`).
 */
async function lockForRatingChange(tx: DbOrTx, evaluationId: string): Promise<EvaluationRow> {
  const [row] = await tx
    .update(evaluations)
    .set({ ratingsRevision: sql`${evaluations.ratingsRevision} + 1` })
    .where(eq(evaluations.id, evaluationId))
    .returning();
  if (!row) throw evaluationNotFound(evaluationId);
  return row;
}

/**
 * Takes the evaluation for one new rating. Shared (`FOR SHARE`): raters of one evaluation proceed side by side,
 * while any change to the evaluation (its status, its window) waits for them and they for it, so no rating lands
 * after the evaluation ended. One rating per rater is kept by the unique index, not by this lock. Exclusive (as a
 * delete takes it) when the rating may end the evaluation: the one that reaches the target must see every other.
 */
async function lockForRating(
  tx: DbOrTx,
  evaluationId: string,
  exclusive: boolean,
  access: PendingAccess | undefined,
): Promise<EvaluationRow> {
  if (exclusive) {
    // Checked before the exclusive lock, so a caller without access never holds up the evaluation's raters.
    if (access) await loadEvaluationAccess(tx, access.actor, evaluationId, { need: access.need });
    return lockForRatingChange(tx, evaluationId);
  }
  if (access) {
    return (await loadEvaluationAccess(tx, access.actor, evaluationId, { need: access.need, forShare: true }))
      .row;
  }
  const [row] = await evaluationForRating(tx, { id: evaluationId });
  if (!row) throw evaluationNotFound(evaluationId);
  return row;
}

/**
 * Counts a new rating on the evaluation's revision shard of this connection, late in the transaction so the shard
 * row stays locked only briefly before the commit; one connection runs one transaction at a time, so raters on different
 * connections seldom meet on a shard.
 */
async function countRating(tx: DbOrTx, evaluationId: string): Promise<void> {
  await countOnShard(tx, { evaluationId });
}

// Every new rating runs these: hot statements, built once (building one costs about as much as running it).

const evaluationForRating = hotStatement("evaluation_for_rating", (db, $: Params<{ id: string }>) =>
  db.select().from(evaluations).where(eq(evaluations.id, $.id)).for("share"),
);

const comparisonOfEvaluation = hotStatement(
  "comparison_of_evaluation",
  (db, $: Params<{ id: string; evaluationId: string }>) =>
    db
      .select({ id: comparisons.id })
      .from(comparisons)
      .where(and(eq(comparisons.id, $.id), eq(comparisons.evaluationId, $.evaluationId)))
      .limit(1),
);

type NewRating = Omit<typeof ratings.$inferSelect, "rubricVersion">;

const insertRating = hotStatement("insert_rating", (db, $: Params<NewRating>) =>
  db
    .insert(ratings)
    .values({
      id: $.id,
      evaluationId: $.evaluationId,
      comparisonId: $.comparisonId,
      teamId: $.teamId,
      raterType: $.raterType,
      userId: $.userId,
      publicRaterId: $.publicRaterId,
      autouserId: $.autouserId,
      autouserRunId: $.autouserRunId,
      singleRaterKey: $.singleRaterKey,
      dimensionRatings: $.dimensionRatings,
      templateVersions: $.templateVersions,
      openTextResponses: $.openTextResponses,
      factors: $.factors,
      justification: $.justification,
      skipReason: $.skipReason,
      timeSpentSeconds: $.timeSpentSeconds,
      createdAt: $.createdAt,
      updatedAt: $.updatedAt,
    })
    // A second rating by the same rater waits here for the first to commit, then fails on the unique index
    // (`alreadyRated`): an error, so that the commit sent behind it rolls the rest back.
    .returning(),
);

const countOnShard = hotStatement("count_rating_on_shard", (db, $: Params<{ evaluationId: string }>) =>
  db
    .insert(evaluationRatingRevisions)
    .values({
      evaluationId: $.evaluationId,
      shard: sql`pg_backend_pid() % ${sql.raw(String(REVISION_SHARDS))}`,
      revision: 1,
    })
    .onConflictDoUpdate({
      target: [evaluationRatingRevisions.evaluationId, evaluationRatingRevisions.shard],
      set: { revision: sql`${evaluationRatingRevisions.revision} + 1` },
    }),
);

/** Thrown inside a shared-lock attempt that finds the rating may end the evaluation; the attempt is retried. */
class NeedsExclusiveLock extends Error {}

function mayEnd(row: EvaluationRow, now: Date): boolean {
  return row.targetRatingsPerComparison !== null || deadlinePassed(row, now);
}

/**
 * The access a rating's caller still has to be granted, checked with the rating's lock in the same statement
 * (`before` is then an earlier read of the evaluation, whose access says nothing of this caller's). `seen` gets the
 * row each granted lock finds.
 */
export interface PendingAccess {
  actor: Actor;
  need: SharePermission;
  seen?: (row: EvaluationRow) => void;
}

/**
 * Inserts one rating for any kind of rater. The caller has already checked that the rater may rate, or passes
 * `access` to have it checked under the rating's lock.
 */
export async function submitRating(
  ctx: CoreContext,
  before: EvaluationRow,
  rater: Rater,
  input: RatingSubmission,
  access?: PendingAccess,
): Promise<Rating> {
  const now = ctx.clock.now();
  const evaluationId = before.id;
  // `before` is the caller's read: its status is checked before any transaction is opened (unless access is
  // still to be checked, which must refuse first); the rest is checked against the row as the lock finds it.
  if (!access && before.status !== "Running") throw notRunning(before);
  const notInEvaluation = () =>
    ApiError.invalid(
      "comparisonId",
      `No such comparison in evaluation ${evaluationId}: ${input.comparisonId}.`,
    );

  const key = raterKey(rater);
  const countsUsage = rater.type !== "autouser";
  type Outcome = { rating: Rating | null; closedAt: Date | null };
  const attempt = (exclusive: boolean, usage: "fast" | "exact") =>
    commitWithLast<Outcome>(ctx.db, async (tx) => {
      // The reads a rating checks against go with the row lock on the transaction's connection, in one round trip
      // (on the pool they had taken up to three connections and a round trip each). Sent after the lock, they see
      // at least what it does. The plan's limits read here are no fresher than outside (the team row is not locked).
      // So do the usage total a fast count decides on and the endpoints the event goes to, so that the writes
      // after need no answer before the commit.
      const [row, [comparison], loadedTemplates, plan, ahead, subscribers] = await together(
        lockForRating(tx, evaluationId, exclusive, access),
        comparisonOfEvaluation(tx, { id: input.comparisonId, evaluationId }),
        loadStatsTemplates(tx, before),
        countsUsage ? teamPlan(tx, before.teamId) : null,
        countsUsage && !exclusive && usage === "fast"
          ? readTotalAhead(tx, before.teamId, "human_ratings_mo", now)
          : null,
        exclusive ? null : subscribersAhead(tx, before.teamId, "rating.created"),
      );
      access?.seen?.(row);
      if (row.status !== "Running") throw notRunning(row);
      if (!comparison) throw notInEvaluation();
      // Read for the selection of the caller's read; a change since is read again under the lock.
      const templates =
        row.selectedDimensionIds.join("\u0000") === before.selectedDimensionIds.join("\u0000")
          ? loadedTemplates
          : await loadStatsTemplates(tx, row);
      validateDimensionRatings(row, templates, input);
      if (!exclusive && mayEnd(row, now)) throw new NeedsExclusiveLock();
      if (deadlinePassed(row, now)) {
        // The window closed before anyone swept it: end the evaluation now (committed, unless autouser runs are
        // still at work: the last of them ends it) and refuse the rating.
        if (!(await hasActiveRuns(tx, row.id))) await endEvaluation(tx, ctx, row);
        return { value: { rating: null, closedAt: row.ratingDeadline! } };
      }

      const rated = input.skipReason === undefined ? templates : [];
      const values: NewRating = {
        id: newId("rating"),
        evaluationId,
        comparisonId: comparison.id,
        teamId: row.teamId,
        raterType: rater.type,
        userId: rater.type === "user" ? rater.userId : null,
        publicRaterId: rater.type === "public" ? rater.publicRaterId : null,
        autouserId: rater.type === "autouser" ? rater.autouserId : null,
        autouserRunId: rater.type === "autouser" ? rater.autouserRunId : null,
        singleRaterKey: row.allowMultipleRatings ? null : key,
        dimensionRatings: input.dimensionRatings,
        templateVersions: Object.fromEntries(rated.map((t) => [t.id, t.version])),
        openTextResponses: input.openTextResponses,
        factors: input.factors,
        justification: input.justification ?? null,
        skipReason: input.skipReason ?? null,
        timeSpentSeconds: input.timeSpentSeconds ?? null,
        createdAt: now,
        updatedAt: now,
      };
      // A transfer between the read and the lock moves the rating to another team: its plan is read here.
      const team = plan && row.teamId === before.teamId ? { id: row.teamId, ...plan } : row.teamId;
      const count = () =>
        recordUsage(tx, team, "human_ratings_mo", now, 1, { policy: ctx.limits, spread: usage });
      const createdEvent = (rating: Rating) => ({
        type: "rating.created" as const,
        teamId: row.teamId,
        object: { ...rating, rubricVersion: null },
      });
      if (exclusive) {
        const [inserted] = await insertRating(tx, values);
        const rating = toRating(inserted!);
        await emitEvent(tx, ctx, createdEvent(rating));
        if (
          rater.type !== "autouser" &&
          (await targetReached(tx, row)) &&
          !(await hasActiveRuns(tx, row.id))
        ) {
          await endEvaluation(tx, ctx, row);
        }
        // The exclusive lock already bumped the evaluation's own revision. Counted last; a refusal rolls the
        // rating back.
        if (rater.type !== "autouser") await count();
        return { value: { rating, closedAt: null } };
      }
      // Nothing left here depends on another's answer, the insert's included: the rating is what the insert
      // stores (`asStoredRating`), so its event, its count and the usage go out with the insert on the
      // transaction's connection, one round trip for all. A second rating by the same rater fails the insert, and
      // the rest fails after it. The shard rows (revision, usage) are held from here to the commit.
      const rating = toRating(asStoredRating(values));
      // The fast count is decided on the total read with the lock, before anything is sent: the statements then
      // leave with the commit, whose refusals are all Postgres's own (the unique index).
      const countFast =
        countsUsage && ahead && typeof team !== "string"
          ? countAhead(team, ahead, now, { policy: ctx.limits })
          : null;
      const sameTeam = row.teamId === before.teamId;
      const last = together(
        insertRating(tx, values),
        emitEvent(tx, ctx, createdEvent(rating), sameTeam && subscribers ? subscribers : undefined),
        countRating(tx, evaluationId),
        countFast ? countFast(tx) : countsUsage ? count() : null,
      );
      const value = { rating, closedAt: null };
      // The exact count (near the quota) decides on its answer, and a rating moved to another team since the
      // caller's read reads that team's plan and endpoints first: then the statements are awaited before the commit.
      if ((countsUsage && !countFast) || !sameTeam) {
        await last;
        return { value };
      }
      return { value, last };
    });
  const run = (exclusive: boolean, usage: "fast" | "exact"): ReturnType<typeof attempt> =>
    attempt(exclusive, usage).catch(async (err: unknown) => {
      if (err instanceof NeedsExclusiveLock) return run(true, usage);
      // Near the quota: again, counting exactly (every shard of the team's counter held).
      if (err instanceof UsageNearLimit) return run(exclusive, "exact");
      if (violatedUniqueIndex(err) === "ratings_single_rater_uq")
        throw await alreadyRated(ctx.db, input.comparisonId, key);
      throw err;
    });
  const outcome = await run(mayEnd(before, now), "fast");
  if (outcome.closedAt) {
    throw new ApiError(
      "evaluation_not_running",
      `The rating window of evaluation ${evaluationId} closed at ${outcome.closedAt.toISOString()}; it has ended.`,
    );
  }
  return outcome.rating!;
}

async function alreadyRated(tx: DbOrTx, comparisonId: string, key: string): Promise<ApiError> {
  const [existing] = await tx
    .select({ id: ratings.id })
    .from(ratings)
    .where(and(eq(ratings.comparisonId, comparisonId), eq(ratings.singleRaterKey, key)))
    .limit(1);
  return new ApiError(
    "rating_already_exists",
    `This rater already rated comparison ${comparisonId}${existing ? ` (${existing.id})` : ""}; the evaluation allows one rating per rater and comparison.`,
    { param: "comparisonId" },
  );
}

/**
 * Evaluations this process saw a rating lock lately, by id, the most recent last: the `before` of the next rating
 * of each, whose caller's access and the evaluation's state are then checked under that rating's lock, in the
 * lock's statement, instead of by a read of their own on another connection first. A row kept here is only ever
 * a starting guess: the lock's row decides, and a stale guess costs at most the retry with the exclusive lock.
 */
const recentlyRated = new Map<string, EvaluationRow>();
const RECENTLY_RATED_CAP = 512;

function rememberRated(row: EvaluationRow): void {
  recentlyRated.delete(row.id);
  recentlyRated.set(row.id, row);
  if (recentlyRated.size > RECENTLY_RATED_CAP) recentlyRated.delete(recentlyRated.keys().next().value!);
}

/** `POST /evaluations/{id}/ratings`: a team member (or their key) rates as themselves. */
export async function createRating(
  ctx: CoreContext,
  actor: Actor,
  evaluationId: string,
  input: RatingSubmission,
): Promise<Rating> {
  const rater: Rater = { type: "user", userId: actor.userId };
  const known = recentlyRated.get(evaluationId);
  if (known) return submitRating(ctx, known, rater, input, { actor, need: "EDITOR", seen: rememberRated });
  const row = await loadVisibleEvaluation(ctx.db, actor, evaluationId, { need: "EDITOR" });
  rememberRated(row);
  return submitRating(ctx, row, rater, input);
}

export async function listRatings(
  ctx: CoreContext,
  actor: Actor,
  evaluationId: string,
  query: PageQuery & { comparisonId?: string; raterType?: RaterType },
) {
  await loadVisibleEvaluation(ctx.db, actor, evaluationId, { need: "VIEWER" });
  const page = await paginate<RatingRow>({
    db: ctx.db,
    table: ratings,
    resource: "rating",
    where: and(
      eq(ratings.evaluationId, evaluationId),
      query.comparisonId ? eq(ratings.comparisonId, query.comparisonId) : undefined,
      query.raterType ? eq(ratings.raterType, query.raterType) : undefined,
    ),
    query,
  });
  return { ...page, data: page.data.map(toRating) };
}

export async function getRating(ctx: CoreContext, actor: Actor, evaluationId: string, ratingId: string) {
  await loadVisibleEvaluation(ctx.db, actor, evaluationId, { need: "VIEWER" });
  const [row] = await ctx.db
    .select()
    .from(ratings)
    .where(and(eq(ratings.id, ratingId), eq(ratings.evaluationId, evaluationId)))
    .limit(1);
  if (!row) throw ApiError.notFound("rating_not_found", `No such rating: ${ratingId}.`);
  return toRating(row);
}

/** Deletes the given ratings of a Running evaluation; ids that are not its ratings are reported, not fatal. */
export async function bulkDeleteRatings(ctx: CoreContext, actor: Actor, evaluationId: string, ids: string[]) {
  await loadVisibleEvaluation(ctx.db, actor, evaluationId);
  return ctx.db.transaction(async (tx) => {
    const row = await lockForRatingChange(tx, evaluationId);
    if (row.status !== "Running") throw notRunning(row);
    const unique = [...new Set(ids)];
    const found = await tx
      .select({ id: ratings.id })
      .from(ratings)
      .where(and(eq(ratings.evaluationId, evaluationId), inArray(ratings.id, unique)));
    const deleted = new Set(found.map((r) => r.id));
    if (deleted.size > 0) {
      await recordTombstone(tx, ratings, "rating", [...deleted]);
      await tx.delete(ratings).where(inArray(ratings.id, [...deleted]));
    }
    return {
      object: "rating_bulk_delete" as const,
      deleted: unique.filter((id) => deleted.has(id)),
      notFound: unique.filter((id) => !deleted.has(id)),
    };
  });
}
