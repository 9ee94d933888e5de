import {
  SCALE_POINTS,
  TEMPLATE_DEFAULTS,
  type Template,
  type TemplateBody,
  type TemplateVersion,
} from "@rubricon/contracts";
import type { templates, templateVersions } from "@rubricon/db";
import { ApiError } from "../shared/errors";

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

/** The checks one field's schema cannot make alone: the scale is ordered, sized by its type, and labels fit it. */
export function assertScaleConsistent(body: StoredBody): void {
  if (body.scaleMin >= body.scaleMax) {
    throw ApiError.invalid(
      "scaleMax",
      `\`scaleMax\` (${body.scaleMax}) must be greater than \`scaleMin\` (${body.scaleMin}).`,
    );
  }
  const points = SCALE_POINTS[body.scaleType];
  if (body.scaleMax - body.scaleMin + 1 !== points) {
    throw ApiError.invalid(
      "scaleMax",
      `A ${body.scaleType} scale has ${points} points, so \`scaleMax\` must be \`scaleMin\` + ${points - 1} (got ${body.scaleMin}..${body.scaleMax}).`,
    );
  }
  for (const key of Object.keys(body.scaleLabels)) {
    const point = Number(key);
    if (point < body.scaleMin || point > body.scaleMax) {
      throw ApiError.invalid(
        `scaleLabels.${key}`,
        `Scale label ${key} is outside the scale ${body.scaleMin}..${body.scaleMax}.`,
      );
    }
  }
  for (const field of ["sseScaleLabels", "sseScaleDescriptions"] as const) {
    const list = body[field];
    if (list && list.length > points) {
      throw ApiError.invalid(
        field,
        `\`${field}\` has ${list.length} entries but the scale has ${points} points.`,
      );
    }
  }
  for (const field of ["sxsScaleLabels", "sxsScaleDescriptions"] as const) {
    const list = body[field];
    if (list && list.length > 7) {
      throw ApiError.invalid(
        field,
        `\`${field}\` has ${list.length} entries but the side-by-side scale (-3..+3) has 7.`,
      );
    }
  }
}
