import { type Database, sharedDatabase } from "@rubricon/db";
import type { Env } from "./config/env";
import { startupStep } from "./config/startup";
import { DB_POOL_SIZE, observabilityOn, statementObserver } from "./observability/instrument";

// A module of its own, not part of app.ts: the worker opens the database too, and app.ts (the whole HTTP surface:
// routers, OAuth and MCP servers) is an entry of its own in the bundles, which a static import would load whole.

/** The process's database, migrated to head; a failure names the setting to look at and the root cause. */
export function openDatabase(env: Env): Promise<Database> {
  return startupStep(
    env.databaseUrl
      ? "opening the database (DATABASE_URL)"
      : "opening the embedded database (DATA_DIR/pglite)",
    () =>
      sharedDatabase({
        url: env.databaseUrl,
        dataDir: env.databaseUrl ? undefined : `${env.dataDir}/pglite`,
        prepareStatements: env.databasePrepareStatements,
        maxConnections: DB_POOL_SIZE,
        connectTimeoutMs: env.databaseConnectTimeoutMs,
        statementTimeoutMs: env.databaseStatementTimeoutMs,
        ...(observabilityOn(env) ? { observe: statementObserver() } : {}),
        migrate: true,
      }),
  );
}
