import type { ComparisonTask, JudgeTemplate, Persona } from "@rubricon/agents";
import {
  autouserRubrics,
  autousers,
  comparisons,
  type DbOrTx,
  evaluations,
  type StimulusRow,
  templates,
} from "@rubricon/db";
import { and, eq, inArray } from "drizzle-orm";
import type { RunRow } from "../../evaluation";

/** Everything a run needs, read once when a worker takes it. */
export interface RunContext {
  evaluation: typeof evaluations.$inferSelect;
  persona: Persona;
  templates: (JudgeTemplate & { version: number })[];
  rubricVersion: number | null;
  comparisons: { id: string; stimulus: StimulusRow | null }[];
}

/** A link the run's browser can open for a file of the team, or null when there is no such ready file. */
export type FileUrlResolver = (fileId: string) => Promise<string | null>;

/**
 * What the agent visits for a comparison: its web addresses, or fresh signed links to its files (made just before
 * the visit, so a long run never opens an expired link). Null when a side has neither.
 */
export async function taskOf(
  stimulus: StimulusRow | null,
  fileUrl: FileUrlResolver,
): Promise<ComparisonTask | null> {
  const addressOf = async (s: { url: string | null; fileId: string | null }) =>
    s.url ?? (s.fileId ? await fileUrl(s.fileId) : null);
  if (stimulus?.kind === "single") {
    const url = await addressOf(stimulus);
    return url ? { type: "SSE", url } : null;
  }
  if (stimulus?.kind === "pair") {
    const [urlA, urlB] = await Promise.all([addressOf(stimulus.sideA), addressOf(stimulus.sideB)]);
    return urlA && urlB ? { type: "SxS", urlA, urlB } : null;
  }
  return null;
}

function str(body: Record<string, unknown>, key: string, fallback = ""): string {
  const v = body[key];
  return typeof v === "string" ? v : fallback;
}

function num(body: Record<string, unknown>, key: string, fallback: number): number {
  const v = body[key];
  return typeof v === "number" ? v : fallback;
}

/** The autouser as the agents package reads it: its persona, and per template the guidance of its rubric. */
export async function loadRunContext(db: DbOrTx, run: RunRow): Promise<RunContext | null> {
  const [evaluation] = await db
    .select()
    .from(evaluations)
    .where(eq(evaluations.id, run.evaluationId))
    .limit(1);
  const [autouser] = await db.select().from(autousers).where(eq(autousers.id, run.autouserId)).limit(1);
  if (!evaluation || !autouser) return null;
  const p = autouser.persona;
  const persona: Persona = {
    name: autouser.name,
    role: autouser.role,
    description: p.description,
    goals: p.goals,
    traits: p.traits,
    expertise: p.expertise,
    accessibilityNeeds: p.accessibilityNeeds as Persona["accessibilityNeeds"],
    device: p.device,
    systemPrompt: autouser.systemPrompt,
  };
  const rubrics = await db
    .select()
    .from(autouserRubrics)
    .where(
      and(
        eq(autouserRubrics.autouserId, autouser.id),
        inArray(autouserRubrics.dimensionId, evaluation.selectedDimensionIds),
      ),
    );
  // The active (frozen) rubric wins; otherwise the newest version of each template's rubric.
  const rubricFor = new Map<string, (typeof rubrics)[number]>();
  for (const r of rubrics) {
    const current = rubricFor.get(r.dimensionId);
    if (
      r.id === autouser.activeRubricId ||
      !current ||
      (current.id !== autouser.activeRubricId && r.version > current.version)
    ) {
      rubricFor.set(r.dimensionId, r);
    }
  }
  const found = await db
    .select()
    .from(templates)
    .where(inArray(templates.id, evaluation.selectedDimensionIds));
  const byId = new Map(found.map((t) => [t.id, t]));
  const judgeTemplates = evaluation.selectedDimensionIds.flatMap((id) => {
    const t = byId.get(id);
    if (!t) return [];
    const body = t.body;
    const rubric = rubricFor.get(id);
    const guidelines = [str(body, "guidelines"), rubric?.guidance ?? ""].filter(Boolean).join("\n\n");
    return [
      {
        id,
        name: t.name,
        version: t.version,
        description: str(body, "description"),
        question: str(body, "question", t.name),
        guidelines,
        scaleMin: num(body, "scaleMin", 1),
        scaleMax: num(body, "scaleMax", 7),
        scaleLabels: (body.scaleLabels as Record<string, string> | undefined) ?? {},
        sourceBuiltInId: str(body, "sourceBuiltInId") || (t.isSystem ? id : null),
      },
    ];
  });
  const versions = [...rubricFor.values()].map((r) => r.version);
  const rows = await db
    .select({ id: comparisons.id, stimulus: comparisons.stimulus })
    .from(comparisons)
    .where(inArray(comparisons.id, run.comparisonIds));
  const stimulus = new Map(rows.map((r) => [r.id, r.stimulus]));
  return {
    evaluation,
    persona,
    templates: judgeTemplates,
    rubricVersion: versions.length > 0 ? Math.max(...versions) : null,
    comparisons: run.comparisonIds.map((id) => ({ id, stimulus: stimulus.get(id) ?? null })),
  };
}
