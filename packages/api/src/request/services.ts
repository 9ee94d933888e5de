import type { Clock, EnforcementMode, FileStorage, MeteredTeam, RunEventWaker } from "@rubricon/core";
import type { Db } from "@rubricon/db";
import type { Env } from "../config/env";
import type { Principal } from "./principal";

/** What the app builds once at start and every request, handler and background loop shares. */
export interface AppServices {
  db: Db;
  env: Env;
  clock: Clock;
  limits: RateLimits;
  /** Wakes autouser stream readers of this process when a run log grows (LISTEN on the database). */
  runWaker: RunEventWaker;
  /** Where uploaded and generated files live (local disk or S3-compatible storage), run screenshots included. */
  storage: FileStorage;
}

// The shapes of the limit services live with the other request types, so a request's services can be named by
// every layer without importing the limits that implement them.

/** Everything limits need at run time, built once per app (`createRateLimits`). */
export interface RateLimits {
  mode: EnforcementMode;
  window: SlidingWindow;
  meters: TeamMeters;
  /** Reports a failing window store at most once a minute, and lets the request through. */
  storeFailed(err: unknown): void;
  close(): Promise<void>;
}

/** Which team a principal's requests count against, and its limits (`MeterCache`). */
export interface TeamMeters {
  teamOf(principal: Principal): Promise<MeteredTeam | null>;
  /** Forgets a team's cached plan and limits, so a change made through this instance applies at once. */
  forgetTeam(teamId: string): void;
}

/**
 * A true sliding window: a request at instant t counts against every window holding t, so at any instant the
 * last `windowMs` hold at most `limit` accepted requests. Kept as a log of accepted instants per key (memory
 * grows with the limit, not the traffic: refused requests are not logged).
 */
export interface SlidingWindow {
  /**
   * Counts one request under `key` at `nowMs` if the window has room (with `consume` false, only looks).
   * `id` is unique per request, so two requests in the same millisecond are two entries.
   */
  hit(request: WindowRequest): Promise<WindowState>;
  close(): Promise<void>;
}

export interface WindowRequest {
  key: string;
  limit: number;
  windowMs: number;
  nowMs: number;
  id: string;
  consume?: boolean;
}

export interface WindowState {
  allowed: boolean;
  limit: number;
  /** Requests still allowed in the window after this one. */
  remaining: number;
  /** When the oldest counted request leaves the window (a slot frees); `nowMs + windowMs` for an empty window. */
  resetMs: number;
}
