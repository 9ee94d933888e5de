import type { EventEnvelope, EventType, PageQuery } from "@rubricon/contracts";
import { events } from "@rubricon/db";
import { and, eq } from "drizzle-orm";
import { findMembership, resolveTargetTeam } from "../../identity";
import type { Actor, CoreContext } from "../../kernel";
import { ApiError } from "../../kernel";
import { seqPaginate } from "./seq-page";
import { type EventRow, eventFromRow } from "./serialize";

// GET /events — the team's event log, newest first, for polling and replay
export async function listEvents(
  ctx: CoreContext,
  actor: Actor,
  query: PageQuery & { teamId?: string; type?: EventType; object_id?: string },
) {
  const { team } = await resolveTargetTeam(ctx.db, actor, query.teamId);
  const ofTeam = eq(events.teamId, team.id);
  const page = await seqPaginate<EventRow>({
    db: ctx.db,
    table: events,
    where: and(
      ofTeam,
      query.type ? eq(events.type, query.type) : undefined,
      query.object_id ? eq(events.objectId, query.object_id) : undefined,
    ),
    cursorScope: ofTeam,
    query,
  });
  return { ...page, data: page.data.map(eventFromRow) };
}

// GET /events/{id}
export async function getEvent(ctx: CoreContext, actor: Actor, id: string): Promise<EventEnvelope> {
  const [row] = await ctx.db.select().from(events).where(eq(events.id, id)).limit(1);
  if (!row || !(await findMembership(ctx.db, actor, row.teamId))) {
    throw ApiError.notFound("event_not_found", `No such event: ${id}.`);
  }
  return eventFromRow(row);
}
