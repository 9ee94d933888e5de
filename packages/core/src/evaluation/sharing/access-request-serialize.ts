import type { AccessRequest } from "@rubricon/contracts";
import { type accessRequests, type DbOrTx, evaluations } from "@rubricon/db";
import { inArray } from "drizzle-orm";
import { peopleById } from "../../identity";

export type RequestRow = typeof accessRequests.$inferSelect;
export type RequestStatus = RequestRow["status"];

export async function serializeAccessRequests(db: DbOrTx, rows: RequestRow[]): Promise<AccessRequest[]> {
  if (rows.length === 0) return [];
  const people = await peopleById(
    db,
    rows.map((r) => r.requesterId),
  );
  const names = await db
    .select({ id: evaluations.id, name: evaluations.name })
    .from(evaluations)
    .where(inArray(evaluations.id, [...new Set(rows.map((r) => r.evaluationId))]));
  const nameOf = new Map(names.map((n) => [n.id, n.name]));
  return rows.map((r) => {
    const p = people.get(r.requesterId);
    return {
      id: r.id,
      object: "access_request" as const,
      evaluationId: r.evaluationId,
      evaluationName: nameOf.get(r.evaluationId) ?? "",
      requesterId: r.requesterId,
      requester: { id: r.requesterId, name: p?.name ?? null, email: p?.email ?? "" },
      status: r.status,
      message: r.message,
      decidedAt: r.decidedAt?.toISOString() ?? null,
      createdAt: r.createdAt.toISOString(),
      updatedAt: r.updatedAt.toISOString(),
    };
  });
}
