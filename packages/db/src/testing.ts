import { randomBytes } from "node:crypto";
import postgres from "postgres";
import { createDatabase, type Database, type DatabaseOptions, migrateDatabase } from "./client";

export interface TestDatabase extends Database {
  /** The database's postgres:// URL, for other processes to share it; undefined for in-memory PGlite. */
  url: string | undefined;
  /** Closes the connection and, on Postgres, drops the database. */
  dispose(): Promise<void>;
}

/**
 * A fresh, migrated database for one test file: a new Postgres database when `DATABASE_URL` is set (CI), or an
 * in-memory PGlite otherwise.
 */
export async function createTestDatabase(
  env: NodeJS.ProcessEnv = process.env,
  opts: Pick<DatabaseOptions, "onQuery"> = {},
): Promise<TestDatabase> {
  const baseUrl = env.DATABASE_URL;
  if (!baseUrl) {
    const database = createDatabase(opts);
    await migrateDatabase(database);
    return { ...database, url: undefined, dispose: () => database.close() };
  }
  const name = `rubricon_t_${Date.now().toString(36)}_${randomBytes(4).toString("hex")}`;
  const admin = postgres(baseUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`CREATE DATABASE "${name}"`);
  await admin.end();
  const url = new URL(baseUrl);
  url.pathname = `/${name}`;
  const database = createDatabase({ ...opts, url: url.toString(), maxConnections: 5 });
  await migrateDatabase(database);
  return {
    ...database,
    url: url.toString(),
    dispose: async () => {
      await database.close();
      const cleanup = postgres(baseUrl, { max: 1, onnotice: () => {} });
      await cleanup.unsafe(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      await cleanup.end();
    },
  };
}
