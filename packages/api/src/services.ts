import type { Clock } from "@rubricon/core";
import type { Db } from "@rubricon/db";
import type { Env } from "./config/env";
import type { RateLimits } from "./limits/rate-limits";

/** What the app builds once at start and every request, handler and background loop shares. */
export interface AppServices {
  db: Db;
  env: Env;
  clock: Clock;
  limits: RateLimits;
}
