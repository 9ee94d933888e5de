import type { AiInsights, InsightsSummary } from "@rubricon/contracts";
import { aiInsights, comparisons, type DbOrTx, evaluations, ratings } from "@rubricon/db";
import { and, asc, eq, sql } from "drizzle-orm";
import type { EvaluationRow } from "../../evaluation";
import {
  loadStatsTemplates,
  loadVisibleEvaluation,
  type StatsTemplate,
  statsFingerprint,
} from "../../evaluation";
import type { Actor, CoreContext } from "../../kernel";
import { extractiveInsights, type InsightInput } from "./extractive";

type InsightsRow = typeof aiInsights.$inferSelect;

/** Writes a summary: the team's model, or the extractive summarizer. */
export interface InsightsWriter {
  generator: "model" | "extractive";
  model: string | null;
  write(input: InsightInput, signal: AbortSignal): Promise<InsightsSummary>;
}

export const extractiveWriter: InsightsWriter = {
  generator: "extractive",
  model: null,
  write: async (input) => extractiveInsights(input),
};

/** A worker that died mid-summary leaves its claim; after this long another takes it. */
const LEASE_MS = 2 * 60_000;
const MAX_ATTEMPTS = 3;
/** The justifications a summary reads, at most (the most recent). */
const MAX_SOURCES = 500;
export const INSIGHTS_TIME_LIMIT_MS = 90_000;

function toInsights(evaluationId: string, row: InsightsRow | undefined, fingerprint: string): AiInsights {
  const payload = (row?.payload ?? null) as InsightsSummary | null;
  return {
    object: "ai_insights",
    evaluationId,
    status: row?.status ?? "not_started",
    generator: row?.generator ?? null,
    model: row?.model ?? null,
    stale: row ? row.fingerprint !== fingerprint : false,
    ratingCount: row?.ratingCount ?? 0,
    summary: payload?.summary ?? null,
    themes: payload?.themes ?? [],
    comparisons: payload?.comparisons ?? [],
    error: row?.error ?? null,
    requestedAt: row?.requestedAt.toISOString() ?? null,
    generatedAt: row?.generatedAt?.toISOString() ?? null,
  };
}

async function fingerprintOf(
  db: DbOrTx,
  row: EvaluationRow,
): Promise<{ fingerprint: string; templates: StatsTemplate[] }> {
  const templates = await loadStatsTemplates(db, row);
  return { fingerprint: await statsFingerprint(db, row, templates), templates };
}

async function loadRow(db: DbOrTx, evaluationId: string) {
  const [row] = await db.select().from(aiInsights).where(eq(aiInsights.evaluationId, evaluationId)).limit(1);
  return row;
}

/** `GET /evaluations/{id}/ai-insights`: the latest summary, and whether ratings changed since. */
export async function getInsights(ctx: CoreContext, actor: Actor, id: string): Promise<AiInsights> {
  const evaluation = await loadVisibleEvaluation(ctx.db, actor, id, { need: "VIEWER" });
  const { fingerprint } = await fingerprintOf(ctx.db, evaluation);
  return toInsights(id, await loadRow(ctx.db, id), fingerprint);
}

/**
 * `POST /evaluations/{id}/ai-insights`: asks the worker for a new summary. Like results, a summary is cached by
 * the ratings' fingerprint: while the latest one (or the one being written) is of the current ratings, nothing
 * new is queued.
 */
export async function requestInsights(ctx: CoreContext, actor: Actor, id: string): Promise<AiInsights> {
  const evaluation = await loadVisibleEvaluation(ctx.db, actor, id, { need: "EDITOR" });
  const { fingerprint } = await fingerprintOf(ctx.db, evaluation);
  const current = await loadRow(ctx.db, id);
  if (current && current.fingerprint === fingerprint && current.status !== "failed") {
    return toInsights(id, current, fingerprint);
  }
  const now = ctx.clock.now();
  const [row] = await ctx.db
    .insert(aiInsights)
    .values({ evaluationId: id, status: "queued", fingerprint, requestedAt: now, attempts: 0 })
    .onConflictDoUpdate({
      target: aiInsights.evaluationId,
      set: {
        status: "queued",
        fingerprint,
        requestedAt: now,
        attempts: 0,
        error: null,
        leaseExpiresAt: null,
      },
    })
    .returning();
  return toInsights(id, row, fingerprint);
}

/** Each rating's justification with its score scaled to 0..1 (side by side: 0 is A much better, 1 B much better). */
async function loadInput(
  db: DbOrTx,
  evaluation: EvaluationRow,
  templates: StatsTemplate[],
): Promise<InsightInput> {
  const [comps, rows] = await Promise.all([
    db
      .select({ id: comparisons.id, name: comparisons.name })
      .from(comparisons)
      .where(eq(comparisons.evaluationId, evaluation.id))
      .orderBy(asc(comparisons.position), asc(comparisons.id)),
    db
      .select({
        id: ratings.id,
        comparisonId: ratings.comparisonId,
        justification: ratings.justification,
        dimensionRatings: ratings.dimensionRatings,
        skipReason: ratings.skipReason,
      })
      .from(ratings)
      .where(eq(ratings.evaluationId, evaluation.id))
      .orderBy(sql`${ratings.createdAt} desc`, sql`${ratings.id} desc`)
      .limit(MAX_SOURCES),
  ]);
  const scaleOf = new Map(templates.map((t) => [t.id, t]));
  return {
    type: evaluation.type,
    comparisons: comps,
    sources: rows.reverse().map((r) => {
      const scaled = Object.entries(r.dimensionRatings).flatMap(([key, value]) => {
        if (evaluation.type === "SxS") return [(value + 3) / 6];
        const t = scaleOf.get(key);
        return t && t.scaleMax > t.scaleMin ? [(value - t.scaleMin) / (t.scaleMax - t.scaleMin)] : [];
      });
      return {
        ratingId: r.id,
        comparisonId: r.comparisonId,
        justification: r.justification ?? "",
        score: r.skipReason || scaled.length === 0 ? null : scaled.reduce((a, b) => a + b, 0) / scaled.length,
      };
    }),
  };
}

/** Keeps only quotes that are the words of a rating of this evaluation; a model may not invent them. */
export function verifiedSummary(summary: InsightsSummary, input: InsightInput): InsightsSummary {
  const norm = (t: string) => t.replace(/\s+/g, " ").replace(/…$/, "").trim().toLowerCase();
  const texts = new Map(input.sources.map((s) => [s.ratingId, norm(s.justification)]));
  const real = (q: { ratingId: string; text: string }) => {
    const source = texts.get(q.ratingId);
    return source !== undefined && norm(q.text).length > 0 && source.includes(norm(q.text));
  };
  const ids = new Set(input.comparisons.map((c) => c.id));
  return {
    summary: summary.summary,
    themes: summary.themes.map((t) => ({ ...t, quotes: t.quotes.filter(real) })),
    comparisons: summary.comparisons
      .filter((c) => ids.has(c.comparisonId))
      .map((c) => ({
        ...c,
        ratingCount: input.sources.filter((s) => s.comparisonId === c.comparisonId).length,
        strengths: c.strengths.map((p) => ({ ...p, quotes: p.quotes.filter(real) })),
        problems: c.problems.map((p) => ({ ...p, quotes: p.quotes.filter(real) })),
      })),
  };
}

/** Claims the oldest queued summary (or one whose worker's lease ran out), so workers never write the same one. */
async function claim(ctx: CoreContext) {
  const now = ctx.clock.now();
  const rows = await ctx.db.execute<{ evaluation_id: string }>(sql`
    update ${aiInsights} set status = 'running', attempts = ${aiInsights.attempts} + 1,
      lease_expires_at = ${new Date(now.getTime() + LEASE_MS).toISOString()}::timestamptz
    where ${aiInsights.evaluationId} = (
      select ${aiInsights.evaluationId} from ${aiInsights}
      where ${aiInsights.status} = 'queued'
         or (${aiInsights.status} = 'running' and ${aiInsights.leaseExpiresAt} < ${now.toISOString()}::timestamptz)
      order by ${aiInsights.requestedAt}
      for update skip locked
      limit 1)
    returning ${aiInsights.evaluationId} as evaluation_id`);
  const list = Array.isArray(rows) ? rows : ((rows as { rows?: { evaluation_id: string }[] }).rows ?? []);
  return list[0]?.evaluation_id ?? null;
}

/**
 * One pass of the insights worker: claims a queued summary, writes it with the team's writer and stores it.
 * Answers the evaluation it wrote, or null when none was waiting.
 */
export async function runInsightsPass(
  ctx: CoreContext,
  writerFor: (teamId: string) => Promise<InsightsWriter>,
): Promise<{ evaluationId: string; status: "ready" | "failed" | "queued" } | null> {
  const evaluationId = await claim(ctx);
  if (!evaluationId) return null;
  const [evaluation] = await ctx.db
    .select()
    .from(evaluations)
    .where(eq(evaluations.id, evaluationId))
    .limit(1);
  if (!evaluation) return null;
  const row = await loadRow(ctx.db, evaluationId);
  const { fingerprint, templates } = await fingerprintOf(ctx.db, evaluation);
  const input = await loadInput(ctx.db, evaluation, templates);
  const writer = await writerFor(evaluation.teamId);
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), INSIGHTS_TIME_LIMIT_MS);
  timer.unref?.();
  try {
    const written = await writer.write(input, controller.signal);
    const summary = writer.generator === "model" ? verifiedSummary(written, input) : written;
    await ctx.db
      .update(aiInsights)
      .set({
        status: "ready",
        fingerprint,
        generator: writer.generator,
        model: writer.model,
        ratingCount: input.sources.length,
        payload: summary as unknown as Record<string, unknown>,
        error: null,
        leaseExpiresAt: null,
        generatedAt: ctx.clock.now(),
      })
      .where(and(eq(aiInsights.evaluationId, evaluationId), eq(aiInsights.status, "running")));
    return { evaluationId, status: "ready" };
  } catch (err) {
    console.error(`ai insights of ${evaluationId} failed:`, err);
    const retry = (row?.attempts ?? 1) < MAX_ATTEMPTS;
    await ctx.db
      .update(aiInsights)
      .set({
        status: retry ? "queued" : "failed",
        leaseExpiresAt: null,
        error: {
          code: "model_error",
          message: "The model failed to write the summary. Ask for it again to retry.",
        },
      })
      .where(eq(aiInsights.evaluationId, evaluationId));
    return { evaluationId, status: retry ? "queued" : "failed" };
  } finally {
    clearTimeout(timer);
  }
}
