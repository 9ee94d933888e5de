import type { EventEnvelope, EventType } from "@rubricon/contracts";
import { events } from "@rubricon/db";
import { and, asc, desc, eq, gt, inArray } from "drizzle-orm";
import { resolveTargetTeam } from "../../identity";
import type { Actor, CoreContext } from "../../kernel";
import { ApiError } from "../../kernel";
import { eventFromRow } from "./serialize";

export interface TeamStreamEvent {
  id?: string;
  event: string;
  data: unknown;
}

/** How often a listener looks for new events; it is a development tool, so a second of delay is fine. */
export const EVENT_STREAM_POLL_MS = 1_000;
const BATCH = 100;

/**
 * The team's events live (`GET /events/stream`): `ready`, then each event logged after the stream opened (or
 * after `lastEventId` when resuming) in log order, as webhook deliveries send it. The SSE id is the event's id.
 */
export async function* streamTeamEvents(
  ctx: CoreContext,
  actor: Actor,
  options: { teamId?: string; types?: string; lastEventId?: string; signal?: AbortSignal; pollMs?: number },
): AsyncGenerator<TeamStreamEvent> {
  const { team } = await resolveTargetTeam(ctx.db, actor, options.teamId);
  const ofTeam = eq(events.teamId, team.id);
  const types = options.types ? (options.types.split(",") as EventType[]) : undefined;
  let after: number;
  if (options.lastEventId !== undefined) {
    const [row] = await ctx.db
      .select({ seq: events.seq })
      .from(events)
      .where(and(ofTeam, eq(events.id, options.lastEventId)))
      .limit(1);
    if (!row) {
      throw ApiError.invalid(
        "Last-Event-ID",
        `No event ${options.lastEventId} in this team's log (it may be past retention); reconnect without Last-Event-ID.`,
      );
    }
    after = row.seq;
  } else {
    const [last] = await ctx.db
      .select({ seq: events.seq })
      .from(events)
      .where(ofTeam)
      .orderBy(desc(events.seq))
      .limit(1);
    after = last?.seq ?? 0;
  }
  yield { event: "ready", data: { object: "event_stream", teamId: team.id } };
  for (;;) {
    const rows = await ctx.db
      .select()
      .from(events)
      .where(and(ofTeam, gt(events.seq, after), types ? inArray(events.type, types) : undefined))
      .orderBy(asc(events.seq))
      .limit(BATCH);
    for (const row of rows) {
      after = row.seq;
      const data: EventEnvelope = row.payload
        ? (JSON.parse(row.payload) as EventEnvelope)
        : eventFromRow(row);
      yield { id: row.id, event: row.type, data };
    }
    if (rows.length === BATCH) continue;
    if (options.signal?.aborted) return;
    await new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        options.signal?.removeEventListener("abort", done);
        resolve();
      };
      const timer = setTimeout(done, options.pollMs ?? EVENT_STREAM_POLL_MS);
      options.signal?.addEventListener("abort", done, { once: true });
    });
    if (options.signal?.aborted) return;
  }
}
