import type { Plan, RequiredScope } from "@rubricon/contracts";
import type { OpenApiMeta } from "trpc-to-openapi";

// Route meta types live apart from the tRPC instance so the transport (request context, uploads, admission) can
// name them without importing the middleware that enforces them.

/** A deployment feature flag a route can belong to (see `gates.ts`). */
export type Feature = "webhooks";

/**
 * A route's own limit, declared in its meta beside its scope: `limit` requests per `windowSec` per user (the
 * signed-in or credential's user) or per client address. Routes naming the same `bucket` share one window
 * (e.g. a family of pairing routes); by default each route has its own.
 */
export interface RouteLimit {
  /** Whom the window counts: the user (the address when there is none), the client address, or the `id` the call names. */
  key: "user" | "ip" | "id";
  limit: number;
  windowSec: number;
  bucket?: string;
  /** With `key: "id"`: what the id names, for the 429's message and the route's description (e.g. "endpoint"). */
  noun?: string;
}

/** A route that takes a `multipart/form-data` upload: the part holding the file and its largest size. */
export interface UploadRoute {
  field: string;
  maxFileBytes: number;
}

export interface Deprecation {
  /** IMF-fixdate-able instant after which the route answers 410. */
  sunset: Date;
  /** Path of the successor route, relative to /api/v1. */
  successor: string;
}

/**
 * A route that answers a server-sent event stream: a tRPC subscription whose async generator yields
 * `ServerSentEvent`s. trpc-to-openapi refuses subscriptions, so these carry their own route meta and the OpenAPI
 * document describes them in its post-processing step.
 */
export interface StreamRoute {
  method: "GET" | "POST";
  path: `/${string}`;
  summary: string;
  description?: string;
  tags?: string[];
  /** The event names the stream sends, each with what its `data` holds, for the document. */
  events: Record<string, string>;
}

/** Route rules live in meta, one readable place per route; middleware enforces them. */
export type RouteMeta = OpenApiMeta<{
  /** Scope an API key or OAuth token must hold; several when the route reads across families (all are needed). */
  scope?: RequiredScope | RequiredScope[];
  /** Only session (dashboard) principals may call it. */
  sessionOnly?: boolean;
  /** Success status when not 200. A 302 route returns `{ location }` (see `redirectTo`). */
  successStatus?: 200 | 201 | 202 | 204 | 302;
  /** The route streams server-sent events (see `StreamRoute`). */
  stream?: StreamRoute;
  /**
   * The route takes a `multipart/form-data` upload: the transport streams the file part to a staging file
   * (`ctx.upload`) and passes the other parts as the input.
   */
  upload?: UploadRoute;
  /** The largest request body the route accepts, when not the pipeline's 1 MB. */
  maxBodyBytes?: number;
  deprecation?: Deprecation;
  /** Media types the route can answer besides JSON (a CSV export), listed on its success response. */
  produces?: string[];
  /** Reached without credentials (`publicProcedure`); every other route refuses an anonymous caller first. */
  public?: boolean;
  /** POSTs that create nothing may opt out of Idempotency-Key handling. */
  idempotent?: boolean;
  /**
   * Top-level response fields holding a secret shown once (an API key, a signing secret). They are never stored
   * with the idempotency record, and a repeat of the request is refused rather than replayed without them.
   */
  secretFields?: string[];
  /** Spends nothing of the team's requests-per-minute budget (the headers still report it). */
  unmetered?: boolean;
  /** The route's own, stricter limit, on top of the team's budget. */
  routeLimit?: RouteLimit;
  /** The deployment feature flag the route belongs to; while it is off the route answers 503. */
  feature?: Feature;
  /** Plans on which the team the request acts on may call the route; others get 403 `plan_upgrade_required`. */
  plans?: Plan[];
  /**
   * The output is built field by field, in the schema's order, from typed rows by one serializer that
   * `trusted-outputs.test.ts` holds to the output schema byte for byte: it is not parsed again on every response
   * (see `validateSynchronously`). The schema still documents the route.
   */
  trustedOutput?: true;
  /**
   * The route answers one cached object again and again (results, agreement) and never changes it: its JSON is
   * serialized, encoded and tagged once and kept with the object. The REST answer carries that `ETag`, and a GET
   * whose `If-None-Match` names it gets `304 Not Modified` without the body.
   */
  reusedBody?: true;
}>;
