import type { PageQuery, RatingSubmission, ShareStartInput, ShareView } from "@rubricon/contracts";
import {
  comparisons,
  type DbOrTx,
  evaluations,
  newId,
  publicRaters,
  ratings,
  teams,
  templates,
  users,
} from "@rubricon/db";
import { and, asc, count, eq, inArray, sql } from "drizzle-orm";
import { findMembership } from "../../identity";
import type { Actor, CoreContext } from "../../kernel";
import { ApiError, paginate, randomToken, sha256Hex, verifyPassword } from "../../kernel";
import { loadVisibleEvaluation } from "../evaluations/access";
import { toComparison } from "../evaluations/comparisons";
import type { EvaluationRow } from "../evaluations/serialize";
import { submitRating } from "../ratings/ratings";

/** Who opened the share link: maybe a signed-in user, maybe a public rater holding its cookie token. */
export interface ShareViewer {
  userId: string | null;
  raterToken: string | null;
}

type RaterIdentity =
  | { kind: "user"; id: string; name: string | null }
  | { kind: "public"; id: string; name: string | null };

function shareNotFound(): ApiError {
  return ApiError.notFound("share_not_found", "No evaluation is shared at this link.");
}

/** The evaluation behind a share token. Drafts (not started) and archived evaluations are not shared. */
async function loadShared(db: DbOrTx, token: string): Promise<EvaluationRow> {
  const [row] = await db.select().from(evaluations).where(eq(evaluations.shareToken, token)).limit(1);
  if (!row || row.status === "Draft" || row.status === "Archived") throw shareNotFound();
  return row;
}

async function memberRater(
  db: DbOrTx,
  row: EvaluationRow,
  userId: string | null,
): Promise<RaterIdentity | null> {
  if (!userId) return null;
  const actor: Actor = { userId, boundTeamId: null, principal: "session" };
  if (!(await findMembership(db, actor, row.teamId))) return null;
  const [user] = await db
    .select({ name: users.name, email: users.email })
    .from(users)
    .where(eq(users.id, userId));
  return { kind: "user", id: userId, name: user?.name ?? user?.email ?? null };
}

/**
 * The public rater a cookie names, if it still may rate: started under the link's current password and token
 * (`accessVersion`), and not excluded by the evaluation's owners (then `excluded`).
 */
async function publicRater(
  db: DbOrTx,
  row: EvaluationRow,
  token: string | null,
): Promise<RaterIdentity | "excluded" | null> {
  if (!token) return null;
  const [rater] = await db
    .select({
      id: publicRaters.id,
      name: publicRaters.name,
      accessVersion: publicRaters.accessVersion,
      excludedAt: publicRaters.excludedAt,
    })
    .from(publicRaters)
    .where(and(eq(publicRaters.tokenHash, sha256Hex(token)), eq(publicRaters.evaluationId, row.id)))
    .limit(1);
  if (!rater) return null;
  if (rater.excludedAt) return "excluded";
  if (rater.accessVersion !== row.shareAccessVersion) return null;
  return { kind: "public", id: rater.id, name: rater.name };
}

function raterExcluded(): ApiError {
  return ApiError.forbidden(
    "share_rater_excluded",
    "The evaluation's owners have excluded this rater; it takes no more ratings from you.",
  );
}

/**
 * Who may rate through the link: a signed-in team member always (as themselves); anyone else only on
 * ANYONE_WITH_LINK and PASSWORD_PROTECTED links, once they have started as a public rater.
 */
async function resolveRater(db: DbOrTx, row: EvaluationRow, viewer: ShareViewer) {
  const member = await memberRater(db, row, viewer.userId);
  if (member) return { state: "ready" as const, rater: member };
  switch (row.shareAccess) {
    case "AUTOUSERS_LINK":
      return { state: "autousers_only" as const, rater: null };
    case "TEAM_ONLY":
      return {
        state: viewer.userId ? ("not_a_member" as const) : ("sign_in_required" as const),
        rater: null,
      };
    default: {
      const rater = await publicRater(db, row, viewer.raterToken);
      if (rater === "excluded") return { state: "excluded" as const, rater: null };
      return rater ? { state: "ready" as const, rater } : { state: "start" as const, rater: null };
    }
  }
}

function text(body: Record<string, unknown>, key: string): string | null {
  const v = body[key];
  return typeof v === "string" && v.length > 0 ? v : null;
}

export async function shareView(ctx: CoreContext, token: string, viewer: ShareViewer): Promise<ShareView> {
  const row = await loadShared(ctx.db, token);
  const { state, rater } = await resolveRater(ctx.db, row, viewer);
  const open = state === "ready";
  const [team] = await ctx.db.select({ name: teams.name }).from(teams).where(eq(teams.id, row.teamId));
  const [comps, tpls, rated] = open
    ? await Promise.all([
        ctx.db
          .select()
          .from(comparisons)
          .where(eq(comparisons.evaluationId, row.id))
          .orderBy(asc(comparisons.position), asc(comparisons.id)),
        ctx.db.select().from(templates).where(inArray(templates.id, row.selectedDimensionIds)),
        ctx.db
          .selectDistinct({ id: ratings.comparisonId })
          .from(ratings)
          .where(
            and(
              eq(ratings.evaluationId, row.id),
              rater!.kind === "user" ? eq(ratings.userId, rater!.id) : eq(ratings.publicRaterId, rater!.id),
            ),
          ),
      ])
    : [[], [], []];
  const byId = new Map(tpls.map((t) => [t.id, t]));
  const sse = row.type === "SSE";
  // Behind a password, a visitor who has not given it learns nothing of the evaluation but that it asks for one.
  const locked = row.shareAccess === "PASSWORD_PROTECTED" && !open;
  return {
    object: "share",
    evaluation: {
      id: row.id,
      name: locked ? null : row.name,
      description: locked ? null : row.description,
      instructions: locked ? null : row.instructions,
      scenario: locked ? null : row.scenario,
      type: row.type,
      status: row.status,
      shareAccess: row.shareAccess,
      teamName: locked ? "" : (team?.name ?? ""),
    },
    access: {
      state: row.status === "Ended" && state === "ready" ? "ended" : state,
      start: {
        password: row.shareAccess === "PASSWORD_PROTECTED",
        name: row.collectRaterName,
        email: row.collectRaterEmail,
      },
      rater,
    },
    comparisons: comps.map(toComparison),
    templates: row.selectedDimensionIds.flatMap((id) => {
      const t = byId.get(id);
      if (!t) return [];
      const b = t.body;
      const labels = b[sse ? "sseScaleLabels" : "sxsScaleLabels"];
      return [
        {
          id,
          name: t.name,
          version: t.version,
          scaleMin: typeof b.scaleMin === "number" ? b.scaleMin : 1,
          scaleMax: typeof b.scaleMax === "number" ? b.scaleMax : 7,
          question: text(b, sse ? "sseQuestion" : "scaleQuestion"),
          labels: Array.isArray(labels) ? (labels as (string | null)[]) : null,
          guidelines: text(b, "guidelines"),
        },
      ];
    }),
    ratedComparisonIds: rated.map((r) => r.id),
  };
}

/**
 * Registers a public rater after the link's checks (password, the details the evaluation asks for) and answers
 * the token their browser keeps; only its hash is stored.
 */
export async function startPublicRater(
  ctx: CoreContext,
  token: string,
  viewer: ShareViewer,
  input: ShareStartInput,
): Promise<{ rater: { id: string; name: string | null }; token: string; reused: boolean }> {
  const row = await loadShared(ctx.db, token);
  const { state } = await resolveRater(ctx.db, row, { ...viewer, raterToken: null });
  // One rater per browser: a visitor who already started (and may still rate) carries on as that rater.
  const current = await publicRater(ctx.db, row, viewer.raterToken);
  if (current === "excluded") throw raterExcluded();
  if (current && viewer.raterToken && state === "start") {
    return { rater: { id: current.id, name: current.name }, token: viewer.raterToken, reused: true };
  }
  if (state === "autousers_only") {
    throw ApiError.forbidden(
      "share_autousers_only",
      "This link is for autousers; people rate through another link.",
    );
  }
  if (state === "sign_in_required" || state === "not_a_member") {
    throw ApiError.forbidden(
      "share_team_members_only",
      "Only members of the evaluation's team can rate it; sign in first.",
    );
  }
  if (row.status !== "Running") {
    throw new ApiError("evaluation_not_running", "This evaluation is not taking ratings.");
  }
  if (row.shareAccess === "PASSWORD_PROTECTED") {
    if (!input.password) {
      throw new ApiError(
        "share_password_required",
        "This evaluation is password protected; send its `password`.",
        {
          param: "password",
        },
      );
    }
    if (!row.sharePasswordHash || !(await verifyPassword(input.password, row.sharePasswordHash))) {
      throw new ApiError("share_password_incorrect", "The password is not correct.", { param: "password" });
    }
  }
  if (row.collectRaterName && !input.name) {
    throw new ApiError("rater_details_required", "This evaluation asks for your name.", { param: "name" });
  }
  if (row.collectRaterEmail && !input.email) {
    throw new ApiError("rater_details_required", "This evaluation asks for your email.", { param: "email" });
  }
  const raterToken = randomToken(24);
  const now = ctx.clock.now();
  const [rater] = await ctx.db
    .insert(publicRaters)
    .values({
      id: newId("publicRater"),
      evaluationId: row.id,
      name: input.name ?? null,
      email: input.email ?? null,
      tokenHash: sha256Hex(raterToken),
      accessVersion: row.shareAccessVersion,
      createdAt: now,
      updatedAt: now,
    })
    .returning({ id: publicRaters.id, name: publicRaters.name });
  return { rater: rater!, token: raterToken, reused: false };
}

/** A rating through the share link, by a signed-in team member or a started public rater. */
export async function submitShareRating(
  ctx: CoreContext,
  token: string,
  viewer: ShareViewer,
  input: RatingSubmission,
) {
  const row = await loadShared(ctx.db, token);
  const { state, rater } = await resolveRater(ctx.db, row, viewer);
  if (state === "excluded") throw raterExcluded();
  if (state === "autousers_only") {
    throw ApiError.forbidden(
      "share_autousers_only",
      "This link is for autousers; people rate through another link.",
    );
  }
  if (state === "sign_in_required" || state === "not_a_member") {
    throw ApiError.forbidden(
      "share_team_members_only",
      "Only members of the evaluation's team can rate it; sign in first.",
    );
  }
  if (!rater) {
    throw ApiError.forbidden(
      row.shareAccess === "PASSWORD_PROTECTED" ? "share_password_required" : "share_team_members_only",
      "Start rating first (POST /api/share/{token}/start).",
    );
  }
  return submitRating(
    ctx,
    row,
    rater.kind === "user" ? { type: "user", userId: rater.id } : { type: "public", publicRaterId: rater.id },
    input,
  );
}

/** `GET /evaluations/{id}/public-raters`: who rated through the link, with their name and email. */
export async function listPublicRaters(
  ctx: CoreContext,
  actor: Actor,
  evaluationId: string,
  query: PageQuery,
) {
  await loadVisibleEvaluation(ctx.db, actor, evaluationId, { need: "VIEWER" });
  const page = await paginate<typeof publicRaters.$inferSelect>({
    db: ctx.db,
    table: publicRaters,
    resource: "public_rater",
    where: eq(publicRaters.evaluationId, evaluationId),
    query,
  });
  const counts = page.data.length
    ? await ctx.db
        .select({ id: ratings.publicRaterId, n: count() })
        .from(ratings)
        .where(
          inArray(
            ratings.publicRaterId,
            page.data.map((r) => r.id),
          ),
        )
        .groupBy(ratings.publicRaterId)
    : [];
  const byId = new Map(counts.map((c) => [c.id, c.n]));
  return {
    ...page,
    data: page.data.map((r) => ({
      id: r.id,
      object: "public_rater" as const,
      evaluationId: r.evaluationId,
      name: r.name,
      email: r.email,
      ratingCount: byId.get(r.id) ?? 0,
      excluded: r.excludedAt !== null,
      createdAt: r.createdAt.toISOString(),
    })),
  };
}

/**
 * `POST /evaluations/{id}/public-raters/{raterId}/exclude`: the rater takes no more ratings, and theirs leave the
 * results and agreement (the revision bump recomputes them). The ratings stay stored and exported, marked by the
 * rater's `excluded` flag; quota spent on them is not given back.
 */
export async function excludePublicRater(
  ctx: CoreContext,
  actor: Actor,
  evaluationId: string,
  raterId: string,
) {
  return ctx.db.transaction(async (tx) => {
    await loadVisibleEvaluation(tx, actor, evaluationId, { forUpdate: true });
    const now = ctx.clock.now();
    const [rater] = await tx
      .update(publicRaters)
      .set({ excludedAt: now, updatedAt: now })
      .where(and(eq(publicRaters.id, raterId), eq(publicRaters.evaluationId, evaluationId)))
      .returning();
    if (!rater) throw ApiError.notFound("public_rater_not_found", `No such public rater: ${raterId}.`);
    await tx
      .update(evaluations)
      .set({ ratingsRevision: sql`${evaluations.ratingsRevision} + 1` })
      .where(eq(evaluations.id, evaluationId));
    const [counted] = await tx.select({ n: count() }).from(ratings).where(eq(ratings.publicRaterId, raterId));
    return {
      id: rater.id,
      object: "public_rater" as const,
      evaluationId: rater.evaluationId,
      name: rater.name,
      email: rater.email,
      ratingCount: counted?.n ?? 0,
      excluded: true,
      createdAt: rater.createdAt.toISOString(),
    };
  });
}

/**
 * `POST /evaluations/{id}/share-token/rotate`: a new link; the old one stops working at once, and raters who
 * started on it start again on the new one.
 */
export async function rotateShareToken(ctx: CoreContext, actor: Actor, evaluationId: string) {
  return ctx.db.transaction(async (tx) => {
    await loadVisibleEvaluation(tx, actor, evaluationId, { forUpdate: true });
    const [row] = await tx
      .update(evaluations)
      .set({
        shareToken: randomToken(18),
        shareAccessVersion: sql`${evaluations.shareAccessVersion} + 1`,
        updatedAt: ctx.clock.now(),
      })
      .where(eq(evaluations.id, evaluationId))
      .returning();
    return row!;
  });
}
