import {
  type DbOrTx,
  hotStatement,
  newId,
  type Params,
  webhookDeliveries,
  webhookEndpoints,
} from "@rubricon/db";
import { and, eq, sql } from "drizzle-orm";

// Run in every transaction that writes an event. In id order, so the deliveries' `seq` follows the endpoints' ids,
// as in the evaluation create's statement (`create-statement.ts`), whatever order the table's rows lie in.
const subscribedEndpoints = hotStatement(
  "subscribed_endpoints",
  (db, $: Params<{ teamId: string; type: string }>) =>
    db
      .select({ id: webhookEndpoints.id })
      .from(webhookEndpoints)
      .where(
        and(
          eq(webhookEndpoints.teamId, $.teamId),
          eq(webhookEndpoints.status, "enabled"),
          sql`${webhookEndpoints.enabledEvents} && array['*', ${$.type}]::text[]`,
        ),
      )
      .orderBy(webhookEndpoints.id),
);

/** The enabled endpoints of a team subscribed to an event type, by id: read ahead with `subscribersAhead`. */
export interface Subscribers {
  teamId: string;
  type: string;
  endpointIds: string[];
}

/**
 * Reads the endpoints an event will be delivered to early in its transaction (with its first statements), so that
 * writing the event and its deliveries later needs no answer first: they can leave with the commit.
 */
export async function subscribersAhead(tx: DbOrTx, teamId: string, type: string): Promise<Subscribers> {
  const endpoints = await subscribedEndpoints(tx, { teamId, type });
  return { teamId, type, endpointIds: endpoints.map((e) => e.id) };
}

/**
 * One pending delivery per enabled endpoint of the team subscribed to the event's type, written in the
 * transaction that writes the event: the event and its deliveries exist together or not at all. With the
 * subscribers read ahead in the same transaction, one statement at most, sent at once.
 */
export async function enqueueDeliveries(
  tx: DbOrTx,
  event: { id: string; teamId: string; type: string; createdAt: Date },
  ahead?: Subscribers,
): Promise<number> {
  if (ahead && (ahead.teamId !== event.teamId || ahead.type !== event.type))
    throw new Error("enqueueDeliveries: the subscribers were read for another team or event type");
  const endpointIds =
    ahead?.endpointIds ??
    (await subscribedEndpoints(tx, { teamId: event.teamId, type: event.type })).map((e) => e.id);
  if (endpointIds.length === 0) return 0;
  await tx.insert(webhookDeliveries).values(
    endpointIds.map((endpointId) => ({
      id: newId("webhookDelivery"),
      endpointId,
      teamId: event.teamId,
      eventId: event.id,
      eventType: event.type,
      nextAttemptAt: event.createdAt,
      createdAt: event.createdAt,
      updatedAt: event.createdAt,
    })),
  );
  return endpointIds.length;
}
