import {
  type Autouser,
  type AutouserRubric,
  DEFAULT_VIEWPORTS,
  type PersonaDevice,
  type PersonaDeviceInput,
} from "@rubricon/contracts";
import type { autouserRubrics, autousers } from "@rubricon/db";

export type AutouserRow = typeof autousers.$inferSelect;
export type AutouserRubricRow = typeof autouserRubrics.$inferSelect;

/** A device as written, completed: the viewport follows the kind unless given, the network defaults to fast. */
export function completeDevice(
  input: PersonaDeviceInput | undefined,
  current?: PersonaDevice,
): PersonaDevice {
  const kind = input?.kind ?? current?.kind ?? "desktop";
  const kindChanged = current !== undefined && kind !== current.kind;
  const viewport =
    input?.viewport ?? (current && !kindChanged ? current.viewport : { ...DEFAULT_VIEWPORTS[kind] });
  return { kind, viewport, network: input?.network ?? current?.network ?? "fast" };
}

export function toAutouser(row: AutouserRow): Autouser {
  const p = row.persona;
  return {
    id: row.id,
    object: "autouser",
    teamId: row.teamId,
    isSystem: row.isSystem,
    name: row.name,
    role: row.role,
    description: p.description,
    goals: p.goals,
    traits: p.traits,
    expertise: p.expertise,
    accessibilityNeeds: p.accessibilityNeeds as Autouser["accessibilityNeeds"],
    device: p.device,
    systemPrompt: row.systemPrompt,
    status: row.status,
    visibility: row.visibility,
    calibrationStatus: row.calibrationStatus,
    activeRubricId: row.activeRubricId,
    sourceAutouserId: row.sourceAutouserId,
    createdBy: row.createdBy,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

export function toAutouserRubric(row: AutouserRubricRow): AutouserRubric {
  return {
    id: row.id,
    object: "autouser_rubric",
    autouserId: row.autouserId,
    dimensionId: row.dimensionId,
    name: row.name,
    version: row.version,
    guidance: row.guidance,
    weights: row.weights,
    isFrozen: row.isFrozen,
    frozenAt: row.frozenAt ? row.frozenAt.toISOString() : null,
    krippendorffAlpha: row.krippendorffAlpha,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}
