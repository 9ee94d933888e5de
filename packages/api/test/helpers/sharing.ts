import { EvaluationShare, NotificationList } from "@rubricon/contracts";
import { bodyOf, call, sessionHeaders, type TestUser } from "./clients";
import type { TestServer } from "./server";

/** Shares an evaluation with `who` through the API, as `by`. */
export async function shareWith(
  server: TestServer,
  by: TestUser,
  evaluationId: string,
  who: TestUser,
  permission: "VIEWER" | "EDITOR" | "OWNER",
) {
  const res = await call(EvaluationShare, `${server.api}/evaluations/${evaluationId}/shares`, {
    method: "POST",
    headers: sessionHeaders(server, by),
    body: { email: who.email, permission },
  });
  if (res.status !== 201) throw new Error(`share failed: ${res.status} ${JSON.stringify(res.body)}`);
  return bodyOf(res);
}

export async function notificationsOf(server: TestServer, who: TestUser) {
  return bodyOf(
    await call(NotificationList, `${server.api}/notifications?limit=100`, {
      headers: sessionHeaders(server, who),
    }),
  );
}
