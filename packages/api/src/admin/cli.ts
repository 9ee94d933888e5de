/**
 * Operator commands against the database directly (not through the API), e.g. to mint the first API key of a
 * fresh install. Run from the repository root as `pnpm --silent admin <command> ...`.
 *
 * The embedded database (PGlite, used when DATABASE_URL is unset) allows one process per data directory: stop the
 * server and the worker before running these against it. With DATABASE_URL they can run alongside.
 */
import { parseArgs } from "node:util";
import type { Plan, Scope } from "@rubricon/contracts";
import type { CoreContext, CustomLimitKey } from "@rubricon/core";
import type { Database } from "@rubricon/db";

// Only type imports above: help and usage errors load nothing else, so they answer at once. The domain, the
// database driver and the settings are imported when a command runs.

const USAGE = `Usage: pnpm --silent admin <command> [options]   (also: pnpm admin -- <command> ...)

Commands:
  bootstrap --email E [--password P] --team NAME [--plan free|team|pro|enterprise] [--scopes '*'] [--json]
      Find or create the user (an existing user's password is left alone) and the team NAME (joining it as a
      member if it exists), set the team's plan (default free) and mint an API key named "bootstrap" bound to
      the team. Scopes are comma- or space-separated (default '*').
  set-plan --team TEAM_ID --plan free|team|pro|enterprise [--json]
      Change a team's plan.
  set-limits --team TEAM_ID [--rpm N] [--autouser-ratings N] [--human-ratings N] [--evals N] [--json]
      Set Enterprise custom limits (requests per minute, autouser and human ratings per month, evaluations);
      a value of "default" clears that limit. They apply while the team's plan is enterprise.
  help
      Show this text.

Uses DATABASE_URL when set, else the embedded database under DATA_DIR (default .data/), which must not be open
in another process: stop the server and the worker first.

Exit codes: 0 done, 1 failed (e.g. unknown team), 2 bad arguments.`;

class UsageError extends Error {}
/** A failure the operator can act on from its message alone; no stack trace. */
class OperatorError extends Error {}

type Flags = Record<string, string | boolean | undefined>;

function parse(args: string[], options: Record<string, { type: "string" | "boolean" }>): Flags {
  try {
    const { values, positionals } = parseArgs({
      args,
      options,
      strict: true,
      allowPositionals: true,
    });
    if (positionals.length > 0) throw new UsageError(`Unexpected argument '${positionals[0]}'.`);
    return values as Flags;
  } catch (err) {
    if (err instanceof UsageError) throw err;
    throw new UsageError((err as Error).message);
  }
}

function required(flags: Flags, name: string): string {
  const value = flags[name];
  if (typeof value !== "string" || value.trim() === "") throw new UsageError(`--${name} is required.`);
  return value;
}

async function planFlag(value: string): Promise<Plan> {
  const { PLANS } = await import("@rubricon/contracts");
  if (!(PLANS as readonly string[]).includes(value))
    throw new UsageError(`Unknown plan '${value}'; expected ${PLANS.join(", ")}.`);
  return value as Plan;
}

/** Scopes as an operator types them: comma- or space-separated; an unknown one is a usage error naming it. */
async function scopesFlag(value: string): Promise<Scope[]> {
  const { SCOPES } = await import("@rubricon/contracts");
  const parts = [...new Set(value.split(/[\s,]+/).filter((s) => s.length > 0))];
  if (parts.length === 0) throw new UsageError("At least one scope is required.");
  const unknown = parts.find((p) => !(SCOPES as readonly string[]).includes(p));
  if (unknown) throw new UsageError(`Unknown scope '${unknown}'; known scopes: ${SCOPES.join(", ")}.`);
  return parts as Scope[];
}

function limitFlag(value: string | boolean | undefined, name: string): number | null | undefined {
  if (typeof value !== "string") return undefined;
  if (value === "default") return null;
  if (!/^\d+$/.test(value)) throw new UsageError(`--${name} must be a non-negative integer or "default".`);
  return Number(value);
}

/** Opens the database the app would use, migrated, so a fresh install works without a separate step. */
async function openDatabase(): Promise<{
  database: Database;
  ctx: CoreContext;
}> {
  const [
    { loadEnv },
    { loadDotEnv },
    { setPasswordHashCost, systemClock },
    { createDatabase, migrateDatabase },
  ] = await Promise.all([
    import("../config/env"),
    import("../config/startup"),
    import("@rubricon/core"),
    import("@rubricon/db"),
  ]);
  let env: ReturnType<typeof loadEnv>;
  try {
    loadDotEnv();
    env = loadEnv();
    setPasswordHashCost(env.passwordHashLogN);
  } catch (err) {
    throw new OperatorError((err as Error).message);
  }
  const database = createDatabase(
    env.databaseUrl
      ? { url: env.databaseUrl, maxConnections: 2, prepareStatements: env.databasePrepareStatements }
      : { dataDir: `${env.dataDir}/pglite` },
  );
  try {
    await migrateDatabase(database);
  } catch (err) {
    await database.close().catch(() => {});
    throw err;
  }
  return {
    database,
    ctx: { db: database.db, clock: systemClock, baseUrl: env.baseUrl },
  };
}

async function withDatabase<T>(fn: (ctx: CoreContext) => Promise<T>): Promise<T> {
  const { database, ctx } = await openDatabase();
  try {
    return await fn(ctx);
  } finally {
    await database.close();
  }
}

function print(json: boolean, value: Record<string, unknown>, summary: string): void {
  process.stdout.write(json ? `${JSON.stringify(value)}\n` : `${summary}\n`);
}

async function run(argv: string[]): Promise<void> {
  // `pnpm admin -- help` hands the separator on; it means nothing here.
  const [command, ...rest] = argv[0] === "--" ? argv.slice(1) : argv;
  switch (command) {
    case undefined:
      throw new UsageError("A command is required.");
    case "help":
    case "--help":
    case "-h":
      process.stdout.write(`${USAGE}\n`);
      return;
    case "bootstrap": {
      const flags = parse(rest, {
        email: { type: "string" },
        password: { type: "string" },
        team: { type: "string" },
        plan: { type: "string" },
        scopes: { type: "string" },
        json: { type: "boolean" },
      });
      const email = required(flags, "email");
      if (!/^[^\s@]+@[^\s@]+$/.test(email.trim()))
        throw new UsageError(`'${email}' is not an email address.`);
      const teamName = required(flags, "team");
      const plan = await planFlag(typeof flags.plan === "string" ? flags.plan : "free");
      const scopes = await scopesFlag(typeof flags.scopes === "string" ? flags.scopes : "*");
      const password = typeof flags.password === "string" ? flags.password : undefined;
      const { bootstrapAccount } = await import("@rubricon/core");
      const result = await withDatabase((ctx) =>
        bootstrapAccount(ctx, { email, password, teamName, plan, scopes }),
      );
      print(
        flags.json === true,
        { userId: result.userId, teamId: result.teamId, apiKey: result.apiKey },
        [
          `User:    ${result.userId} (${result.createdUser ? "created" : "existing; password unchanged"})`,
          `Team:    ${result.teamId} "${teamName}" on ${plan} (${result.createdTeam ? "created" : "existing"})`,
          `API key: ${result.apiKey}`,
          `Scopes:  ${scopes.join(" ")}`,
          "The key is shown only now; store it somewhere safe.",
        ].join("\n"),
      );
      return;
    }
    case "set-plan": {
      const flags = parse(rest, {
        team: { type: "string" },
        plan: { type: "string" },
        json: { type: "boolean" },
      });
      const teamId = required(flags, "team");
      const plan = await planFlag(required(flags, "plan"));
      const { setTeamPlan } = await import("@rubricon/core");
      const result = await withDatabase((ctx) => setTeamPlan(ctx, teamId, plan));
      print(flags.json === true, result, `Team ${result.teamId} is now on the ${result.plan} plan.`);
      return;
    }
    case "set-limits": {
      const flags = parse(rest, {
        team: { type: "string" },
        rpm: { type: "string" },
        "autouser-ratings": { type: "string" },
        "human-ratings": { type: "string" },
        evals: { type: "string" },
        json: { type: "boolean" },
      });
      const teamId = required(flags, "team");
      const limits: Partial<Record<CustomLimitKey, number | null>> = {};
      const names: [string, CustomLimitKey][] = [
        ["rpm", "requestsPerMinute"],
        ["autouser-ratings", "autouserRatingsPerMonth"],
        ["human-ratings", "humanRatingsPerMonth"],
        ["evals", "evaluations"],
      ];
      for (const [flag, key] of names) {
        const value = limitFlag(flags[flag], flag);
        if (value !== undefined) limits[key] = value;
      }
      if (Object.keys(limits).length === 0)
        throw new UsageError("Give at least one of --rpm, --autouser-ratings, --human-ratings, --evals.");
      const { setTeamLimits } = await import("@rubricon/core");
      const result = await withDatabase((ctx) => setTeamLimits(ctx, teamId, limits));
      const shown = result.customLimits ? JSON.stringify(result.customLimits) : "plan defaults";
      print(flags.json === true, result, `Team ${result.teamId} (${result.plan}) limits: ${shown}.`);
      if (result.plan !== "enterprise")
        process.stderr.write("Note: custom limits apply to Enterprise teams only.\n");
      return;
    }
    default:
      throw new UsageError(`Unknown command '${command}'.`);
  }
}

/** Errors whose message is the whole story for an operator; loaded only once a command has run. */
async function isOperatorFacing(err: unknown): Promise<boolean> {
  if (err instanceof OperatorError) return true;
  const [{ ApiError }, { DataDirLockedError }] = await Promise.all([
    import("@rubricon/core"),
    import("@rubricon/db"),
  ]);
  return err instanceof ApiError || err instanceof DataDirLockedError;
}

run(process.argv.slice(2)).then(
  () => {
    process.exitCode = 0;
  },
  async (err: unknown) => {
    if (err instanceof UsageError) {
      process.stderr.write(`${err.message}\n\n${USAGE}\n`);
      process.exitCode = 2;
    } else if (await isOperatorFacing(err)) {
      process.stderr.write(`${(err as Error).message}\n`);
      process.exitCode = 1;
    } else {
      process.stderr.write(`admin: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
      process.exitCode = 1;
    }
  },
);
