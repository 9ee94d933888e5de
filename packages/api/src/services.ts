import type { Clock, FileStorage, RunEventWaker } from "@rubricon/core";
import type { Db } from "@rubricon/db";
import type { Env } from "./config/env";
import type { RateLimits } from "./limits/rate-limits";

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
