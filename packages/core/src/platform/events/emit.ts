import { API_VERSION, type EventEnvelope, type EventType } from "@rubricon/contracts";
import { type DbOrTx, events, hotStatement, newId, type Params } from "@rubricon/db";
import { type CoreContext, together } from "../../kernel";
import { enqueueDeliveries, type Subscribers } from "../webhooks/outbox";

export { type Subscribers, subscribersAhead } from "../webhooks/outbox";

export interface EmitInput {
  type: EventType;
  teamId: string;
  object: Record<string, unknown> & { id: string };
}

type EventValues = Omit<typeof events.$inferSelect, "seq">;

const insertEvent = hotStatement("insert_event", (db, $: Params<EventValues>) =>
  db.insert(events).values({
    id: $.id,
    teamId: $.teamId,
    type: $.type,
    apiVersion: $.apiVersion,
    objectId: $.objectId,
    object: $.object,
    requestId: $.requestId,
    idempotencyKey: $.idempotencyKey,
    payload: $.payload,
    createdAt: $.createdAt,
  }),
);

/**
 * The one way state changes are recorded as events. Call it with the transaction that makes the change, so
 * the event exists exactly when the change does (the outbox).
 */
export async function emitEvent(
  tx: DbOrTx,
  ctx: CoreContext,
  input: EmitInput,
  /** The event's subscribers read earlier in the transaction (`subscribersAhead`): then nothing waits on a read. */
  subscribers?: Subscribers,
): Promise<EventEnvelope> {
  const id = newId("event");
  const createdAt = ctx.clock.now();
  const row = {
    id,
    teamId: input.teamId,
    type: input.type,
    apiVersion: API_VERSION,
    objectId: input.object.id,
    object: input.object,
    requestId: ctx.request?.id ?? null,
    idempotencyKey: ctx.request?.idempotencyKey ?? null,
    createdAt,
  };
  const envelope = toEventEnvelope(row);
  // Serialised once, so every delivery and every read of the log carries the same bytes.
  // Sent together: the endpoints' read does not wait for the event's insert (any deliveries follow both).
  await together(
    insertEvent(tx, { ...row, payload: JSON.stringify(envelope) }),
    enqueueDeliveries(tx, { id, teamId: input.teamId, type: input.type, createdAt }, subscribers),
  );
  return envelope;
}

export function toEventEnvelope(row: {
  id: string;
  teamId: string;
  type: string;
  apiVersion: string;
  object: Record<string, unknown>;
  requestId: string | null;
  idempotencyKey: string | null;
  createdAt: Date;
}): EventEnvelope {
  return {
    id: row.id,
    object: "event",
    type: row.type,
    api_version: row.apiVersion,
    created: Math.floor(row.createdAt.getTime() / 1000),
    team_id: row.teamId,
    data: { object: row.object },
    request: { id: row.requestId, idempotency_key: row.idempotencyKey },
  };
}
