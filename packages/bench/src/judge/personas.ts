/**
 * The system autousers and the system "overall" template, read from a freshly migrated database and shaped the
 * way a worker hands them to the judge (core's run context), so the bench rates as `run-autousers` does.
 */
import type { JudgeTemplate, Persona } from "@rubricon/agents";
import { autouserRubrics, autousers, type Database, templates } from "@rubricon/db";
import { and, asc, eq } from "drizzle-orm";

export interface SystemPersona {
  id: string;
  persona: Persona;
  /** The "overall" template with this autouser's rubric guidance, as a run reads it. */
  template: JudgeTemplate;
}

const TEMPLATE_ID = "overall";

function str(body: Record<string, unknown>, key: string, fallback = ""): string {
  const v = body[key];
  return typeof v === "string" ? v : fallback;
}

function num(body: Record<string, unknown>, key: string, fallback: number): number {
  const v = body[key];
  return typeof v === "number" ? v : fallback;
}

export async function loadSystemPersonas(database: Database): Promise<SystemPersona[]> {
  const db = database.db;
  const [template] = await db.select().from(templates).where(eq(templates.id, TEMPLATE_ID)).limit(1);
  if (!template) throw new Error(`the system template "${TEMPLATE_ID}" is missing from the database`);
  const rows = await db
    .select()
    .from(autousers)
    .where(eq(autousers.isSystem, true))
    .orderBy(asc(autousers.id));
  const out: SystemPersona[] = [];
  for (const row of rows) {
    const rubrics = await db
      .select()
      .from(autouserRubrics)
      .where(and(eq(autouserRubrics.autouserId, row.id), eq(autouserRubrics.dimensionId, TEMPLATE_ID)));
    const rubric =
      rubrics.find((r) => r.id === row.activeRubricId) ??
      [...rubrics].sort((a, b) => b.version - a.version)[0];
    const body = template.body as Record<string, unknown>;
    const p = row.persona;
    out.push({
      id: row.id,
      persona: {
        name: row.name,
        role: row.role,
        description: p.description,
        goals: p.goals,
        traits: p.traits,
        expertise: p.expertise,
        accessibilityNeeds: p.accessibilityNeeds as Persona["accessibilityNeeds"],
        device: p.device,
        systemPrompt: row.systemPrompt,
      },
      template: {
        id: TEMPLATE_ID,
        name: template.name,
        description: str(body, "description"),
        question: str(body, "question", template.name),
        guidelines: [str(body, "guidelines"), rubric?.guidance ?? ""].filter(Boolean).join("\n\n"),
        scaleMin: num(body, "scaleMin", 1),
        scaleMax: num(body, "scaleMax", 7),
        scaleLabels: (body.scaleLabels as Record<string, string> | undefined) ?? {},
        sourceBuiltInId: str(body, "sourceBuiltInId") || (template.isSystem ? TEMPLATE_ID : null),
      },
    });
  }
  return out;
}
