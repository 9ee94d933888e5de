import type { AccessibilityNeed, Persona } from "@rubricon/agents";
import { autousers, type DbOrTx } from "@rubricon/db";
import { and, eq, inArray, or } from "drizzle-orm";
import type { Membership } from "../../identity";
import { ApiError } from "../../kernel";
import { autouserNotFound, canSee } from "./access";
import { activeRubrics } from "./rubrics";
import type { AutouserRow, AutouserRubricRow } from "./serialize";

export interface AutouserUsability {
  /** The person choosing: a team member sees only public autousers and their own private ones. */
  viewer?: { userId: string; role: Membership["role"] };
  /** Names the offending field for the `i`th id; default `selectedAutousers[i].autouserId`. */
  param?: (index: number) => string;
  /** Ids already chosen by someone who could see them (an evaluation's current selection): team rules only. */
  alreadyChosen?: ReadonlySet<string>;
}

/**
 * The autousers `ids` names, in order, once each, refusing (400 naming the field) any id a team's evaluation may
 * not use: only the team's own autousers and system ones. Another team's autouser reads as no such autouser.
 */
export async function assertAutousersUsable(
  db: DbOrTx,
  teamId: string,
  ids: string[],
  options: AutouserUsability = {},
): Promise<AutouserRow[]> {
  const param = options.param ?? ((i: number) => `selectedAutousers[${i}].autouserId`);
  const seen = new Set<string>();
  ids.forEach((id, i) => {
    if (seen.has(id))
      throw ApiError.invalid(param(i), `Autouser ${id} is listed twice; raise its agentCount instead.`);
    seen.add(id);
  });
  if (ids.length === 0) return [];
  const rows = await db
    .select()
    .from(autousers)
    .where(and(inArray(autousers.id, ids), or(eq(autousers.isSystem, true), eq(autousers.teamId, teamId))));
  const { viewer } = options;
  const usable = new Map(
    rows
      .filter(
        (r) =>
          r.isSystem || !viewer || options.alreadyChosen?.has(r.id) || canSee(r, viewer.userId, viewer.role),
      )
      .map((r) => [r.id, r]),
  );
  return ids.map((id, i) => {
    const row = usable.get(id);
    if (!row) throw ApiError.invalid(param(i), `No such autouser: ${id}.`);
    return row;
  });
}

/** The persona as @rubricon/agents reads it. */
export function toAgentPersona(row: AutouserRow): Persona {
  const p = row.persona;
  return {
    name: row.name,
    role: row.role,
    description: p.description,
    goals: p.goals,
    traits: p.traits,
    expertise: p.expertise,
    accessibilityNeeds: p.accessibilityNeeds as AccessibilityNeed[],
    device: p.device,
    systemPrompt: row.systemPrompt,
  };
}

export interface AgentPersona {
  autouser: AutouserRow;
  /** One per template: the newest frozen version, else the newest (see `activeRubrics`). */
  rubrics: AutouserRubricRow[];
  persona: Persona;
}

/** Everything a run needs of an autouser that `teamId` may use; 404 `autouser_not_found` otherwise. */
export async function loadAgentPersona(
  db: DbOrTx,
  autouserId: string,
  teamId: string,
): Promise<AgentPersona> {
  const [row] = await db
    .select()
    .from(autousers)
    .where(and(eq(autousers.id, autouserId), or(eq(autousers.isSystem, true), eq(autousers.teamId, teamId))))
    .limit(1);
  if (!row) throw autouserNotFound(autouserId);
  return { autouser: row, rubrics: await activeRubrics(db, row.id), persona: toAgentPersona(row) };
}
