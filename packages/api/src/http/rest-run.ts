import { ApiError, runIdempotently } from "@rubricon/core";
import { idempotencyReplays } from "../observability/metrics";
import type { Principal, RequestContext } from "../request/context";
import type { Exchange } from "../request/exchange";
import type { Reply, ServerSentEvent } from "../request/reply";
import { callProcedure } from "../trpc/internals";
import { requestFingerprint } from "./idempotency";
import { discardUpload } from "./multipart";
import { jsonReply, streamReply } from "./reply";
import type { RestInput, RestRequest } from "./rest-parse";
import type { Route } from "./route-table";
import { acquireStreamSlot } from "./stream-slots";

/** What a procedure answered, as a status and body; `replayed` when it is an identical earlier request's answer. */
export interface Outcome {
  status: number;
  body: unknown;
  replayed?: true;
}

/**
 * Calls the route's procedure once: an upload with its staged file removed after, a POST with an
 * `Idempotency-Key` at most once per key (its work and the key's outcome commit together, see `runIdempotently`),
 * anything else directly.
 */
export async function runProcedure(
  request: RestRequest,
  principal: Principal | null,
  { input, body, upload, idempotencyKey: key }: RestInput,
): Promise<Outcome> {
  const { ex, route, method } = request;
  if (upload) {
    try {
      return await runRoute(ex, route, input);
    } finally {
      await discardUpload(upload);
    }
  }
  const useIdempotency = method === "POST" && key !== null && route.meta.idempotent !== false && principal;
  if (!useIdempotency) return runRoute(ex, route, input);
  const { services } = ex.ctx;
  // A replay answers only a caller the route itself would serve: admission has decided that before this runs.
  const { replayed, response } = await runIdempotently(
    services.db,
    {
      scope: idempotencyScope(principal),
      key,
      fingerprint: requestFingerprint(method, request.path, body),
      now: services.clock.now(),
    },
    (tx) => runRoute(ex, route, input, { ...ex.ctx, services: { ...services, db: tx } }),
    (outcome) => storableResult(route, outcome),
  );
  if (!replayed) return response;
  if (route.meta.secretFields) throw secretNotReplayable(response.body);
  idempotencyReplays.inc();
  return { status: response.status, body: response.body, replayed: true };
}

/**
 * An event stream route: its procedure's events, or the JSON envelope of what failed before the first one. The
 * stream holds one of its caller's slots until it ends or the client goes away.
 */
export async function streamEvents(
  { ex, route }: RestRequest,
  principal: Principal | null,
  input: Record<string, unknown>,
): Promise<Reply> {
  // A client that reconnects sends the id of the last event it saw; the procedure resumes after it.
  const lastEventId = ex.req.headers.get("last-event-id");
  if (lastEventId !== null) input.lastEventId = lastEventId;
  const release = acquireStreamSlot(principal, input);
  const controller = new AbortController();
  controller.signal.addEventListener("abort", release, { once: true });
  ex.req.signal.addEventListener("abort", () => controller.abort(), { once: true });
  try {
    const events = await callProcedure(route.procedure, {
      ctx: ex.ctx,
      input,
      path: route.procedurePath,
      signal: controller.signal,
    });
    return await streamReply(ex, events as AsyncIterable<ServerSentEvent>, () => controller.abort());
  } catch (err) {
    controller.abort();
    const failed = ex.failure(err, input);
    return jsonReply(ex, failed.status, failed.body);
  }
}

/** A procedure's outcome as the status and body it answers. */
async function runRoute(
  ex: Exchange,
  route: Route,
  input: unknown,
  ctx: RequestContext = ex.ctx,
): Promise<Outcome> {
  try {
    const output = await callProcedure(route.procedure, { ctx, input, path: route.procedurePath });
    return { status: ex.ctx.response.status ?? route.meta.successStatus ?? 200, body: output };
  } catch (err) {
    return ex.failure(err, input);
  }
}

/**
 * Idempotency keys belong to one credential: a key is replayed only to the API key, OAuth app or user that made
 * the first request, never to another credential of the same team.
 */
function idempotencyScope(principal: Principal): string {
  switch (principal.kind) {
    case "api_key":
      return `team:${principal.teamId}:key:${principal.keyId}`;
    case "oauth":
      return `team:${principal.teamId}:oauth:${principal.clientId ?? "-"}:user:${principal.userId}`;
    default:
      return `user:${principal.userId}`;
  }
}

/** The response as kept for replay: without the fields that hold a secret shown once. */
function storableResult(route: Route, result: { status: number; body: unknown }) {
  const secrets = route.meta.secretFields;
  if (!secrets || result.body === null || typeof result.body !== "object") return result;
  const body = { ...(result.body as Record<string, unknown>) };
  for (const field of secrets) delete body[field];
  return { status: result.status, body };
}

function secretNotReplayable(body: unknown): ApiError {
  const id = (body as { id?: unknown } | null)?.id;
  return new ApiError(
    "idempotency_replay_unavailable",
    `A request with this Idempotency-Key already succeeded${typeof id === "string" ? ` and created ${id}` : ""}, ` +
      "but its secret was shown only in that first response and is not kept, so it cannot be replayed. Use the " +
      "object it created (rotate its secret, or revoke it and create another) or send a new key.",
    { param: "Idempotency-Key", ...(typeof id === "string" ? { details: { id } } : {}) },
  );
}
