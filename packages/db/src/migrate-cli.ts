import { createDatabase, migrateDatabase } from "./client";

// `pnpm db:migrate`: applies the committed migrations to DATABASE_URL (or the embedded database under .data/).
const url = process.env.DATABASE_URL || undefined;
const dataDir = url
  ? undefined
  : (process.env.PGLITE_DIR ?? `${process.env.INIT_CWD ?? process.cwd()}/.data/pglite`);
const database = createDatabase({ url, dataDir });
await migrateDatabase(database);
await database.close();
console.log(`migrations applied (${database.kind})`);
