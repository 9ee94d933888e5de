import type { ComparisonTask, JudgeTemplate, Persona } from "@rubricon/agents";
import { autouserRubrics, autousers, comparisons, type DbOrTx, evaluations, templates } from "@rubricon/db";
import { and, eq, inArray } from "drizzle-orm";
import type { RunRow } from "./serialize";

/** Everything a run needs, read once when a worker takes it. */
export interface RunContext {
  evaluation: typeof evaluations.$inferSelect;
  persona: Persona;
  templates: (JudgeTemplate & { version: number })[];
  rubricVersion: number | null;
  comparisons: { id: string; task: ComparisonTask | null }[];
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
    comparisons: run.comparisonIds.map((id) => {
      const s = stimulus.get(id);
      let task: ComparisonTask | null = null;
      if (s?.kind === "single" && s.url) task = { type: "SSE", url: s.url };
      if (s?.kind === "pair" && s.sideA.url && s.sideB.url)
        task = { type: "SxS", urlA: s.sideA.url, urlB: s.sideB.url };
      return { id, task };
    }),
  };
}
