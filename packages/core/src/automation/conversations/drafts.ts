import {
  type ConversationDrafts,
  type ConversationStatus,
  type DraftIssue,
  EvaluationCreateInput,
  TemplateCreateInput,
  templateScaleIssues,
} from "@rubricon/contracts";
import { autousers, type DbOrTx, templates } from "@rubricon/db";
import { and, eq, inArray, isNull, or } from "drizzle-orm";
import type { z } from "zod";

/** A template id that stands for a template the conversation will create (only ever validated, never stored). */
const NEW_TEMPLATE_PLACEHOLDER = "overall";

function issuePath(prefix: string, path: PropertyKey[]): string {
  let out = prefix;
  for (const key of path) out += typeof key === "number" ? `[${key}]` : `${out ? "." : ""}${String(key)}`;
  return out;
}

function zodIssues(prefix: string, error: z.ZodError): DraftIssue[] {
  return error.issues.map((i) => ({ param: issuePath(prefix, i.path), message: i.message }));
}

/** The evaluation's `POST /evaluations` body as materializing will send it. */
export function evaluationCreateBody(
  drafts: ConversationDrafts,
  teamId: string,
  templateIds: string[],
): Record<string, unknown> {
  return {
    ...drafts.evaluation,
    teamId,
    status: "Draft",
    ...(templateIds.length > 0 ? { selectedDimensionIds: templateIds } : {}),
    selectedAutousers: drafts.autousers.map((a) => ({
      autouserId: a.autouserId,
      agentCount: a.agentCount ?? 1,
    })),
  };
}

/** Existing templates and autousers the team may use, of those the drafts name. */
async function visibleIds(db: DbOrTx, teamId: string, drafts: ConversationDrafts) {
  const templateIds = drafts.templates.flatMap((t) => (t.templateId ? [t.templateId] : []));
  const autouserIds = drafts.autousers.flatMap((a) => (a.autouserId ? [a.autouserId] : []));
  const [tpl, auto] = await Promise.all([
    templateIds.length === 0
      ? []
      : db
          .select({ id: templates.id })
          .from(templates)
          .where(
            and(
              inArray(templates.id, templateIds),
              or(eq(templates.isSystem, true), eq(templates.teamId, teamId)),
            ),
          ),
    autouserIds.length === 0
      ? []
      : db
          .select({ id: autousers.id })
          .from(autousers)
          .where(
            and(
              inArray(autousers.id, autouserIds),
              or(and(eq(autousers.isSystem, true), isNull(autousers.teamId)), eq(autousers.teamId, teamId)),
            ),
          ),
  ]);
  return { templates: new Set(tpl.map((r) => r.id)), autousers: new Set(auto.map((r) => r.id)) };
}

/**
 * Everything that keeps the drafts from being materialized, each with where it is. The evaluation is checked by
 * the very schema `POST /evaluations` uses, and each new template by that of `POST /templates`, so drafts
 * without issues always materialize.
 */
export async function draftIssues(
  db: DbOrTx,
  teamId: string,
  drafts: ConversationDrafts,
): Promise<DraftIssue[]> {
  const issues: DraftIssue[] = [];
  const visible = await visibleIds(db, teamId, drafts);

  const refs = new Set<string>();
  drafts.templates.forEach((t, i) => {
    const at = `templates[${i}]`;
    if (refs.has(t.ref))
      issues.push({ param: `${at}.ref`, message: `Two templates are named \`${t.ref}\`.` });
    refs.add(t.ref);
    if ((t.templateId === undefined) === (t.template === undefined)) {
      issues.push({
        param: at,
        message: "Give a template either `templateId` (existing) or `template` (new).",
      });
    } else if (t.templateId !== undefined && !visible.templates.has(t.templateId)) {
      issues.push({ param: `${at}.templateId`, message: `No such template: ${t.templateId}.` });
    } else if (t.template) {
      const parsed = TemplateCreateInput.safeParse({ ...t.template, teamId });
      if (!parsed.success) issues.push(...zodIssues(`${at}.template`, parsed.error));
      else {
        const body = parsed.data;
        if (body.scaleType !== undefined || body.scaleMin !== undefined || body.scaleMax !== undefined) {
          for (const s of templateScaleIssues({
            scaleType: body.scaleType ?? "SEVEN_POINT",
            scaleMin: body.scaleMin ?? 1,
            scaleMax: body.scaleMax ?? 7,
            scaleLabels: body.scaleLabels ?? {},
          })) {
            issues.push({ param: `${at}.template.${s.param}`, message: s.message });
          }
        }
      }
    }
  });

  const autoRefs = new Set<string>();
  drafts.autousers.forEach((a, i) => {
    const at = `autousers[${i}]`;
    if (autoRefs.has(a.ref))
      issues.push({ param: `${at}.ref`, message: `Two autousers are named \`${a.ref}\`.` });
    autoRefs.add(a.ref);
    if (a.autouserId === undefined)
      issues.push({ param: `${at}.autouserId`, message: "Choose an autouser." });
    else if (!visible.autousers.has(a.autouserId)) {
      issues.push({ param: `${at}.autouserId`, message: `No such autouser: ${a.autouserId}.` });
    }
  });

  const templateIds = drafts.templates.map((t) => t.templateId ?? NEW_TEMPLATE_PLACEHOLDER);
  const body = evaluationCreateBody(
    {
      ...drafts,
      // Unchosen autousers are reported above; here they would only repeat it.
      autousers: drafts.autousers.filter((a) => a.autouserId !== undefined),
    },
    teamId,
    templateIds,
  );
  const parsed = EvaluationCreateInput.safeParse(body);
  if (!parsed.success) {
    for (const issue of zodIssues("evaluation", parsed.error)) {
      if (!issue.param.startsWith("evaluation.selected")) issues.push(issue);
    }
  } else {
    const e = parsed.data;
    const count = e.type === "SSE" ? (e.designUrls?.length ?? 0) : (e.comparisonPairs?.length ?? 0);
    if (count === 0) {
      issues.push({
        param: e.type === "SSE" ? "evaluation.designUrls" : "evaluation.comparisonPairs",
        message:
          e.type === "SSE"
            ? "Add at least one design to rate (a URL)."
            : "Add at least one pair of designs to compare (the current one and the variant).",
      });
    }
  }
  return issues;
}

/** Whether the drafts hold anything yet: a conversation with none is still `active`. */
export function draftsEmpty(drafts: ConversationDrafts): boolean {
  return (
    Object.keys(drafts.evaluation).length === 0 &&
    drafts.templates.length === 0 &&
    drafts.autousers.length === 0
  );
}

/** The status drafts put an open conversation in. */
export function statusForDrafts(drafts: ConversationDrafts, issues: DraftIssue[]): ConversationStatus {
  if (draftsEmpty(drafts)) return "active";
  return issues.length === 0 ? "ready" : "needs_review";
}
