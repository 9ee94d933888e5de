import {
  SCALE_POINTS,
  TEMPLATE_DEFAULTS,
  type Template,
  type TemplateBody,
  type TemplateVersion,
  templateScaleIssues,
} from "@rubricon/contracts";
import type { templates, templateVersions } from "@rubricon/db";
import { ApiError } from "../../kernel";

export type TemplateRow = typeof templates.$inferSelect;
export type TemplateVersionRow = typeof templateVersions.$inferSelect;
export type StoredBody = Omit<TemplateBody, "name">;

export function toTemplate(row: TemplateRow): Template {
  const body = {
    ...TEMPLATE_DEFAULTS,
    scaleMin: 1,
    scaleMax: 7,
    ...(row.body as Partial<StoredBody>),
  } as StoredBody;
  return {
    id: row.id,
    object: "template",
    teamId: row.teamId,
    isSystem: row.isSystem,
    version: row.version,
    ...body,
    name: row.name,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

export function toTemplateVersion(row: TemplateVersionRow): TemplateVersion {
  return {
    id: row.id,
    object: "template_version",
    dimensionId: row.templateId,
    version: row.version,
    changeType: row.changeType,
    changeSummary: row.changeSummary,
    createdAt: row.createdAt.toISOString(),
  };
}

/** Fills defaults for a new template; an unset `scaleMax` follows the scale type (1..3, 1..5, 1..7). */
export function bodyWithDefaults(input: Partial<StoredBody>): StoredBody {
  const scaleType = input.scaleType ?? TEMPLATE_DEFAULTS.scaleType;
  const scaleMin = input.scaleMin ?? 1;
  const scaleMax = input.scaleMax ?? scaleMin + SCALE_POINTS[scaleType] - 1;
  const defined = Object.fromEntries(Object.entries(input).filter(([, v]) => v !== undefined));
  return {
    ...TEMPLATE_DEFAULTS,
    ...defined,
    scaleType,
    scaleMin,
    scaleMax,
  } as unknown as StoredBody;
}

/** Enforces the contract's cross-field scale rules, reporting the first problem with its field. */
export function assertScaleConsistent(body: StoredBody): void {
  const [issue] = templateScaleIssues(body);
  if (issue) throw ApiError.invalid(issue.param, issue.message);
}
