import type { Clock } from "@rubricon/core";
import type { Db } from "@rubricon/db";
import type { Env } from "../config/env";
import { log } from "../observability/logger";
import type { RateLimits, SlidingWindow } from "../request/services";
import { MeterCache } from "./meter-cache";
import { RedisSlidingWindow } from "./redis-sliding-window";
import { MemorySlidingWindow } from "./sliding-window";

export async function createRateLimits(env: Env, db: Db, clock: Clock): Promise<RateLimits> {
  const window: SlidingWindow = env.redisUrl
    ? await RedisSlidingWindow.connect(env.redisUrl, env.redisKeyPrefix, env.redisCommandTimeoutMs)
    : new MemorySlidingWindow();
  let lastReport = 0;
  return {
    mode: env.rateLimitMode,
    window,
    meters: new MeterCache(db, clock),
    storeFailed(err) {
      // Failing open: an outage of the limit store should not take the API down with it.
      if (Date.now() - lastReport < 60_000) return;
      lastReport = Date.now();
      log().warn({ err: { message: (err as Error).message } }, "rate limits not applied (store failed)");
    },
    close: () => window.close(),
  };
}
