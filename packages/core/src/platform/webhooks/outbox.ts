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

/**
 * One pending delivery per enabled endpoint of the team subscribed to the event's type, written in the
 * transaction that writes the event: the event and its deliveries exist together or not at all.
 */
export async function enqueueDeliveries(
  tx: DbOrTx,
  event: { id: string; teamId: string; type: string; createdAt: Date },
): Promise<number> {
  const endpoints = await subscribedEndpoints(tx, { teamId: event.teamId, type: event.type });
  if (endpoints.length === 0) return 0;
  await tx.insert(webhookDeliveries).values(
    endpoints.map((endpoint) => ({
      id: newId("webhookDelivery"),
      endpointId: endpoint.id,
      teamId: event.teamId,
      eventId: event.id,
      eventType: event.type,
      nextAttemptAt: event.createdAt,
      createdAt: event.createdAt,
      updatedAt: event.createdAt,
    })),
  );
  return endpoints.length;
}
