import type { Rating, RatingSubmission } from "@rubricon/contracts";
import { commitWithLast, type DbOrTx, newId, ratings, type Tx, violatedUniqueIndex } from "@rubricon/db";
import { and, eq } from "drizzle-orm";
import type { CoreContext } from "../../kernel";
import { ApiError, together } from "../../kernel";
import {
  countAhead,
  emitEvent,
  readTotalAhead,
  recordUsage,
  subscribersAhead,
  teamPlan,
  UsageNearLimit,
} from "../../platform";
import { deadlinePassed, endEvaluation, targetReached } from "../evaluations/lifecycle";
import type { EvaluationRow } from "../evaluations/serialize";
import { loadStatsTemplates } from "../results/load";
import { hasActiveRuns } from "../run-queue/finish";
import { lockForRating, mayEnd, NeedsExclusiveLock, notRunning, type PendingAccess } from "./locks";
import { asStoredRating, toRating } from "./serialize";
import { comparisonOfEvaluation, countRating, insertRating, type NewRating } from "./statements";
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

/** One rating on its way in: the same for every attempt at it. */
interface Submission {
  ctx: CoreContext;
  /** The caller's read of the evaluation; the lock's row decides. */
  before: EvaluationRow;
  rater: Rater;
  input: RatingSubmission;
  access: PendingAccess | undefined;
  now: Date;
  /** Autouser ratings are metered by their runs, not as ratings. */
  countsUsage: boolean;
}

/** How an attempt runs: under the shared or the exclusive lock, counting usage on a shard or exactly. */
interface Mode {
  exclusive: boolean;
  usage: "fast" | "exact";
}

type Outcome = { rating: Rating | null; closedAt: Date | null };
type UsageTeam = Parameters<typeof recordUsage>[1];

/**
 * The reads a rating checks against go with the row lock on the transaction's connection, in one round trip (on
 * the pool they had taken up to three connections and a round trip each). Sent after the lock, they see at least
 * what it does. The plan's limits read here are no fresher than outside (the team row is not locked). So do the
 * usage total a fast count decides on and the endpoints the event goes to, so that the writes after need no answer
 * before the commit.
 */
function readUnderLock(tx: Tx, s: Submission, { exclusive, usage }: Mode) {
  const { before } = s;
  return together(
    lockForRating(tx, before.id, exclusive, s.access),
    comparisonOfEvaluation(tx, { id: s.input.comparisonId, evaluationId: before.id }),
    loadStatsTemplates(tx, before),
    s.countsUsage ? teamPlan(tx, before.teamId) : null,
    s.countsUsage && !exclusive && usage === "fast"
      ? readTotalAhead(tx, before.teamId, "human_ratings_mo", s.now)
      : null,
    exclusive ? null : subscribersAhead(tx, before.teamId, "rating.created"),
  );
}

type LockedReads = Awaited<ReturnType<typeof readUnderLock>>;

/** Refuses the rating on the row as the lock found it; answers the comparison and the templates rated. */
async function checkUnderLock(tx: Tx, s: Submission, reads: LockedReads, { exclusive }: Mode) {
  const [row, [comparison], loadedTemplates] = reads;
  s.access?.seen?.(row);
  if (row.status !== "Running") throw notRunning(row);
  if (!comparison) {
    throw ApiError.invalid(
      "comparisonId",
      `No such comparison in evaluation ${s.before.id}: ${s.input.comparisonId}.`,
    );
  }
  // Read for the selection of the caller's read; a change since is read again under the lock.
  const templates =
    row.selectedDimensionIds.join("\u0000") === s.before.selectedDimensionIds.join("\u0000")
      ? loadedTemplates
      : await loadStatsTemplates(tx, row);
  validateDimensionRatings(row, templates, s.input);
  if (!exclusive && mayEnd(row, s.now)) throw new NeedsExclusiveLock();
  return { comparisonId: comparison.id, templates };
}

function newRating(
  s: Submission,
  row: EvaluationRow,
  comparisonId: string,
  templates: LockedReads[2],
): NewRating {
  const { rater, input, now } = s;
  const rated = input.skipReason === undefined ? templates : [];
  return {
    id: newId("rating"),
    evaluationId: s.before.id,
    comparisonId,
    teamId: row.teamId,
    raterType: rater.type,
    userId: rater.type === "user" ? rater.userId : null,
    publicRaterId: rater.type === "public" ? rater.publicRaterId : null,
    autouserId: rater.type === "autouser" ? rater.autouserId : null,
    autouserRunId: rater.type === "autouser" ? rater.autouserRunId : null,
    singleRaterKey: row.allowMultipleRatings ? null : raterKey(rater),
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
}

function countUsage(tx: Tx, s: Submission, team: UsageTeam, usage: Mode["usage"]) {
  return recordUsage(tx, team, "human_ratings_mo", s.now, 1, { policy: s.ctx.limits, spread: usage });
}

function createdEvent(row: EvaluationRow, rating: Rating) {
  return {
    type: "rating.created" as const,
    teamId: row.teamId,
    object: { ...rating, rubricVersion: null },
  };
}

/** Under the exclusive lock the rating may end the evaluation, so each statement waits for the one before. */
async function insertExclusively(
  tx: Tx,
  s: Submission,
  row: EvaluationRow,
  values: NewRating,
  team: UsageTeam,
  { usage }: Mode,
) {
  const [inserted] = await insertRating(tx, values);
  const rating = toRating(inserted!);
  await emitEvent(tx, s.ctx, createdEvent(row, rating));
  if (s.rater.type !== "autouser" && (await targetReached(tx, row)) && !(await hasActiveRuns(tx, row.id))) {
    await endEvaluation(tx, s.ctx, row);
  }
  // The exclusive lock already bumped the evaluation's own revision. Counted last; a refusal rolls the
  // rating back.
  if (s.rater.type !== "autouser") await countUsage(tx, s, team, usage);
  return { value: { rating, closedAt: null } };
}

/**
 * Under the shared lock nothing left depends on another's answer, the insert's included: the rating is what the
 * insert stores (`asStoredRating`), so its event, its count and the usage go out with the insert on the
 * transaction's connection, one round trip for all. A second rating by the same rater fails the insert, and the
 * rest fails after it. The shard rows (revision, usage) are held from here to the commit.
 */
async function insertAlongside(
  tx: Tx,
  s: Submission,
  row: EvaluationRow,
  values: NewRating,
  team: UsageTeam,
  reads: LockedReads,
  { usage }: Mode,
) {
  const [, , , , ahead, subscribers] = reads;
  const rating = toRating(asStoredRating(values));
  // The fast count is decided on the total read with the lock, before anything is sent: the statements then
  // leave with the commit, whose refusals are all Postgres's own (the unique index).
  const countFast =
    s.countsUsage && ahead && typeof team !== "string"
      ? countAhead(team, ahead, s.now, { policy: s.ctx.limits })
      : null;
  const sameTeam = row.teamId === s.before.teamId;
  const last = together(
    insertRating(tx, values),
    emitEvent(tx, s.ctx, createdEvent(row, rating), sameTeam && subscribers ? subscribers : undefined),
    countRating(tx, s.before.id),
    countFast ? countFast(tx) : s.countsUsage ? countUsage(tx, s, team, usage) : null,
  );
  const value = { rating, closedAt: null };
  // The exact count (near the quota) decides on its answer, and a rating moved to another team since the
  // caller's read reads that team's plan and endpoints first: then the statements are awaited before the commit.
  if ((s.countsUsage && !countFast) || !sameTeam) {
    await last;
    return { value };
  }
  return { value, last };
}

function attempt(s: Submission, mode: Mode): Promise<Outcome> {
  return commitWithLast<Outcome>(s.ctx.db, async (tx) => {
    const reads = await readUnderLock(tx, s, mode);
    const { comparisonId, templates } = await checkUnderLock(tx, s, reads, mode);
    const [row, , , plan] = reads;
    if (deadlinePassed(row, s.now)) {
      // The window closed before anyone swept it: end the evaluation now (committed, unless autouser runs are
      // still at work: the last of them ends it) and refuse the rating.
      if (!(await hasActiveRuns(tx, row.id))) await endEvaluation(tx, s.ctx, row);
      return { value: { rating: null, closedAt: row.ratingDeadline! } };
    }
    const values = newRating(s, row, comparisonId, templates);
    // A transfer between the read and the lock moves the rating to another team: its plan is read here.
    const team = plan && row.teamId === s.before.teamId ? { id: row.teamId, ...plan } : row.teamId;
    return mode.exclusive
      ? insertExclusively(tx, s, row, values, team, mode)
      : insertAlongside(tx, s, row, values, team, reads, mode);
  });
}

/** Attempts again under the exclusive lock, or counting exactly, when an attempt finds it needs to. */
function attemptUntilDecided(s: Submission, mode: Mode): Promise<Outcome> {
  return attempt(s, mode).catch(async (err: unknown) => {
    if (err instanceof NeedsExclusiveLock) return attemptUntilDecided(s, { ...mode, exclusive: true });
    // Near the quota: again, counting exactly (every shard of the team's counter held).
    if (err instanceof UsageNearLimit) return attemptUntilDecided(s, { ...mode, usage: "exact" });
    if (violatedUniqueIndex(err) === "ratings_single_rater_uq")
      throw await alreadyRated(s.ctx.db, s.input.comparisonId, raterKey(s.rater));
    throw err;
  });
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
  // `before` is the caller's read: its status is checked before any transaction is opened (unless access is
  // still to be checked, which must refuse first); the rest is checked against the row as the lock finds it.
  if (!access && before.status !== "Running") throw notRunning(before);
  const submission: Submission = {
    ctx,
    before,
    rater,
    input,
    access,
    now,
    countsUsage: rater.type !== "autouser",
  };
  const outcome = await attemptUntilDecided(submission, { exclusive: mayEnd(before, now), usage: "fast" });
  if (outcome.closedAt) {
    throw new ApiError(
      "evaluation_not_running",
      `The rating window of evaluation ${before.id} closed at ${outcome.closedAt.toISOString()}; it has ended.`,
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
