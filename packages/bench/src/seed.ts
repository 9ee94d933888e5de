import { randomBytes } from "node:crypto";
import {
  bootstrapAccount,
  type CoreContext,
  createEvaluation,
  listEvaluations,
  setTeamLimits,
  systemClock,
} from "@rubricon/core";
import { createDatabase, type Database, migrateDatabase } from "@rubricon/db";
import postgres from "postgres";

export const DEFAULT_ADMIN_URL = "postgres://postgres@127.0.0.1:5432/postgres";

export interface BenchDatabase {
  name: string;
  url: string;
  database: Database;
  /** Closes the pool and drops the database. */
  drop(): Promise<void>;
}

/** A fresh, migrated database beside the admin URL's, so a run never touches real data. */
export async function createBenchDatabase(adminUrl: string): Promise<BenchDatabase> {
  const name = `rubricon_bench_${Date.now()}_${randomBytes(2).toString("hex")}`;
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
  try {
    await admin.unsafe(`CREATE DATABASE "${name}"`);
  } finally {
    await admin.end();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const database = createDatabase({ url: url.toString(), maxConnections: 4 });
  await migrateDatabase(database);
  let dropped = false;
  return {
    name,
    url: url.toString(),
    database,
    async drop() {
      if (dropped) return;
      dropped = true;
      await database.close().catch(() => {});
      const cleanup = postgres(adminUrl, { max: 1, onnotice: () => {} });
      try {
        await cleanup.unsafe(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      } finally {
        await cleanup.end();
      }
    },
  };
}

export interface Seeded {
  apiKey: string;
  teamId: string;
  userId: string;
  /** Evaluation ids in list order (newest first), as the API pages them. */
  evaluationIds: string[];
}

/** One team with `count` SSE evaluations of one to three comparisons each, and a key with every scope. */
export async function seed(database: Database, count: number, baseUrl: string): Promise<Seeded> {
  const ctx: CoreContext = { db: database.db, clock: systemClock, baseUrl };
  const { userId, teamId, apiKey } = await bootstrapAccount(ctx, {
    email: "bench@example.com",
    password: "bench-password",
    teamName: "Bench",
    plan: "enterprise",
    scopes: ["*"],
  });
  // The load would otherwise meet the team's per-minute limit, which is not what this measures (the limiter
  // still runs on every request, so its cost is in the figures).
  await setTeamLimits(ctx, teamId, { requestsPerMinute: 100_000_000 });
  const actor = { userId, boundTeamId: teamId, principal: "api_key" as const };
  for (let i = 0; i < count; i++) {
    await createEvaluation(ctx, actor, {
      name: `Bench evaluation ${i + 1}`,
      type: "SSE",
      status: "Draft",
      shareAccess: "TEAM_ONLY",
      allowMultipleRatings: false,
      collectRaterName: false,
      collectRaterEmail: false,
      evaluationMethod: "manual",
      dryRun: false,
      designUrls: Array.from({ length: 1 + (i % 3) }, (_, j) => ({
        url: `https://example.com/${i}/${j}`,
        stimulusType: "URL" as const,
      })),
    });
  }
  const evaluationIds: string[] = [];
  let startingAfter: string | undefined;
  for (;;) {
    const page = await listEvaluations(ctx, actor, {
      limit: 100,
      ...(startingAfter ? { starting_after: startingAfter } : {}),
    });
    evaluationIds.push(...page.data.map((e) => e.id));
    if (!page.hasMore) break;
    startingAfter = page.data.at(-1)?.id;
  }
  return { apiKey, teamId, userId, evaluationIds };
}
