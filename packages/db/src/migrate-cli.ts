import { createDatabase, migrateDatabase } from "./client";

// `pnpm db:migrate`: applies the committed migrations to DATABASE_URL (or the embedded database under .data/).
const url = process.env.DATABASE_URL || undefined;
// The embedded database is where the server opens it: DATA_DIR/pglite when DATA_DIR is set (as in the images).
const dataDir = url
  ? undefined
  : (process.env.PGLITE_DIR ??
    (process.env.DATA_DIR
      ? `${process.env.DATA_DIR}/pglite`
      : `${process.env.INIT_CWD ?? process.cwd()}/.data/pglite`));
const database = createDatabase({ url, dataDir });
await migrateDatabase(database);
await database.close();
console.log(`migrations applied (${database.kind})`);
