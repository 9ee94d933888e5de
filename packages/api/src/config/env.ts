import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import type { PlatformModel } from "@rubricon/core";
import { z } from "zod";

const Secret = z.string().min(32, "must be at least 32 characters");
const EnvSchema = z.object({
  NODE_ENV: z.enum(["development", "production", "test"]).default("development"),
  DATABASE_URL: z.string().url().optional(),
  DATABASE_PREPARE_STATEMENTS: z.enum(["true", "false"]).default("true"),
  DATABASE_CONNECT_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(5_000),
  DATABASE_STATEMENT_TIMEOUT_MS: z.coerce.number().int().min(100).max(3_600_000).default(15_000),
  REDIS_URL: z.string().url().optional(),
  REDIS_COMMAND_TIMEOUT_MS: z.coerce.number().int().min(50).max(60_000).default(500),
  REDIS_KEY_PREFIX: z
    .string()
    .regex(/^[\w:.-]{0,64}$/, "must be at most 64 letters, digits, `_`, `:`, `.` or `-`")
    .default("rubricon:"),
  RATE_LIMIT_MODE: z.enum(["enforce", "log"]).default("enforce"),
  TRUSTED_PROXY_COUNT: z.coerce.number().int().min(0).max(10).default(0),
  PORT: z.coerce.number().int().min(1).max(65535).default(3000),
  BASE_URL: z.string().url().optional(),
  DATA_DIR: z.string().optional(),
  OAUTH_JWT_SECRET: Secret.optional(),
  PLUGIN_JWT_SECRET: Secret.optional(),
  EMBEDDED_WORKER: z.enum(["true", "false"]).default("true"),
  WEBHOOKS_ENABLED: z.enum(["true", "false"]).default("false"),
  BILLING_ENABLED: z.enum(["true", "false"]).default("false"),
  WEBHOOKS_ALLOW_PRIVATE_URLS: z.enum(["true", "false"]).default("false"),
  PASSWORD_HASH_LOG_N: z.coerce.number().int().min(10).max(20).default(17),
  SSE_HEARTBEAT_MS: z.coerce.number().int().min(50).max(300_000).default(15_000),
  ENCRYPTION_KEY: z
    .string()
    .regex(/^[0-9a-fA-F]{64}$/, "must be 64 hex characters (a 256-bit key)")
    .optional(),
  // The platform's default model for autousers and assistants; a team's BYOK setting wins over it.
  AUTOUSER_PROVIDER: z.enum(["openai", "anthropic", "google", "openai-compatible"]).optional(),
  AUTOUSER_MODEL: z.string().min(1).max(200).optional(),
  AUTOUSER_API_KEY: z.string().min(1).optional(),
  AUTOUSER_BASE_URL: z.string().url().optional(),
  AUTOUSER_CONCURRENCY: z.coerce.number().int().min(1).max(32).default(2),
  AUTOUSER_ALLOW_PRIVATE_URLS: z.enum(["true", "false"]).default("false"),
  CHROMIUM_PATH: z.string().default("/usr/bin/chromium"),
  BROWSER_WS_ENDPOINT: z.string().url().optional(),
  SMTP_URL: z.string().url().optional(),
  EMAIL_FROM: z.string().min(3).default("Rubricon <no-reply@localhost>"),
  S3_BUCKET: z.string().min(3).optional(),
  S3_ENDPOINT: z.string().url().optional(),
  S3_REGION: z.string().default("us-east-1"),
  S3_ACCESS_KEY_ID: z.string().optional(),
  S3_SECRET_ACCESS_KEY: z.string().optional(),
  S3_FORCE_PATH_STYLE: z.enum(["true", "false"]).default("false"),
  SHUTDOWN_TIMEOUT_MS: z.coerce.number().int().min(0).max(600_000).default(25_000),
  WORKER_HEALTH_PORT: z.coerce.number().int().min(1).max(65535).optional(),
  METRICS_PORT: z.coerce.number().int().min(1).max(65535).optional(),
  METRICS_HOST: z.string().min(1).default("127.0.0.1"),
  METRICS_TOKEN: z.string().min(32, "must be at least 32 characters").optional(),
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
  LOG_FORMAT: z.enum(["json", "pretty"]).optional(),
  OTEL_EXPORTER_OTLP_ENDPOINT: z.string().url().optional(),
  OTEL_CAPTURE_CONTENT: z.enum(["true", "false"]).default("false"),
});

/**
 * Prefixes that only this app's settings use: a variable with one of them that is not a setting is a typo
 * (`AUTOUSER_CONCURENCY`) that would otherwise be ignored without a word.
 */
const OWN_PREFIXES = [
  "AUTOUSER_",
  "WEBHOOKS_",
  "S3_",
  "SHUTDOWN_",
  "METRICS_",
  "WORKER_HEALTH",
  "RATE_LIMIT_",
  "REDIS_KEY",
  "REDIS_COMMAND",
  "DATABASE_CONNECT",
  "DATABASE_STATEMENT",
  "SSE_",
  "OTEL_CAPTURE",
];
const KNOWN = new Set(Object.keys(EnvSchema.shape));

export interface Env {
  nodeEnv: "development" | "production" | "test";
  databaseUrl: string | undefined;
  /** Prepare statements on Postgres connections; false behind PgBouncer in transaction mode. */
  databasePrepareStatements: boolean;
  /** How long opening a Postgres connection may take, handshake included. */
  databaseConnectTimeoutMs: number;
  /** Postgres cancels a statement running longer (`statement_timeout`); the client gives up a little later. */
  databaseStatementTimeoutMs: number;
  redisUrl: string | undefined;
  /** How long a Redis command may wait for its answer before the limits fail open. */
  redisCommandTimeoutMs: number;
  /** Prefix of every Redis key, so deployments (or test runs) can share one Redis. */
  redisKeyPrefix: string;
  /** `log` serves over-limit requests and logs them: for rolling limits out. */
  rateLimitMode: "enforce" | "log";
  /** Reverse proxies in front of the app that append to X-Forwarded-For; 0 when clients connect directly. */
  trustedProxyCount: number;
  port: number;
  /** Public origin without a trailing slash. */
  baseUrl: string;
  dataDir: string;
  oauthJwtSecret: string;
  pluginJwtSecret: string;
  encryptionKey: string;
  /** Run the background loops inside the web process (the default); false when `pnpm worker` runs them. */
  embeddedWorker: boolean;
  /** The webhooks and event-log feature (beta): off, their routes answer 503 and no deliveries are sent. */
  webhooksEnabled: boolean;
  /**
   * Plans and their quotas apply to new teams (they start on Free). Off, the default for a self-hosted install,
   * new teams start on the unlimited `self_hosted` plan; teams already on a plan keep it.
   */
  billingEnabled: boolean;
  /** Local development and tests only: webhook URLs may use http and loopback or private addresses. */
  webhooksAllowPrivateUrls: boolean;
  /** scrypt's cost as log2(N): 17 (OWASP's guidance) unless lowered for tests. */
  passwordHashLogN: number;
  /** A comment line is written on every open event stream this often, so proxies keep idle streams open. */
  sseHeartbeatMs: number;
  /** The operator's default model (`AUTOUSER_*`); null runs autousers on the heuristic judge. */
  platformModel: PlatformModel | null;
  /** Autouser runs one worker process drives at once. */
  autouserConcurrency: number;
  /** Local development and tests only: autouser browsers may open loopback and private addresses. */
  autouserAllowPrivateUrls: boolean;
  chromiumPath: string;
  /** A remote browser service (Playwright `connect`), so browser capacity scales apart from the app. */
  browserWsEndpoint: string | undefined;
  /** Outgoing mail (`smtp://user:pass@host:port`); without it mail is written to the log. */
  smtpUrl: string | undefined;
  emailFrom: string;
  /** How long a stopping process lets requests (web) or runs and deliveries (worker) finish. */
  shutdownTimeoutMs: number;
  /** The worker's own `/healthz` and `/readyz` port; unset, the worker serves none. */
  workerHealthPort: number | undefined;
  /** `/metrics` (Prometheus) on its own port and host; unset, no metrics are served. */
  metricsPort: number | undefined;
  /** Loopback by default: only a scraper on the same host (or through a port the operator maps) reaches it. */
  metricsHost: string;
  /** Set, `/metrics` is also served on the main port to `Authorization: Bearer <token>`. */
  metricsToken: string | undefined;
  logLevel: "fatal" | "error" | "warn" | "info" | "debug" | "trace" | "silent";
  /** `pretty` only in development (the default there); JSON lines otherwise. */
  logFormat: "json" | "pretty";
  /** OTLP/HTTP collector; set, traces are exported, unset, the tracing SDK is not even loaded. */
  otelEndpoint: string | undefined;
  /** Record prompt and completion text on model-call spans (off: only model names and token counts). */
  otelCaptureContent: boolean;
  /** S3-compatible object storage for files; without a bucket files live under `DATA_DIR/files`. */
  s3: S3Settings | null;
}

export interface S3Settings {
  bucket: string;
  endpoint: string | undefined;
  region: string;
  accessKeyId: string | undefined;
  secretAccessKey: string | undefined;
  forcePathStyle: boolean;
}

/** The repository root (where pnpm-workspace.yaml is), so `.data/` is one place whichever package runs. */
export function findRepoRoot(start: string): string {
  let dir = resolve(start);
  for (let i = 0; i < 8; i++) {
    if (existsSync(join(dir, "pnpm-workspace.yaml"))) return dir;
    const parent = dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  return resolve(start);
}

function isLoopbackOrigin(baseUrl: string): boolean {
  const host = new URL(baseUrl).hostname;
  return host === "localhost" || host === "::1" || host === "[::1]" || host.startsWith("127.");
}

/**
 * `next start` always runs with NODE_ENV=production, so that alone cannot mean "a real deployment": a production
 * build served on a loopback origin is a local trial and may use generated secrets; one on a public origin may not.
 */
export function isProductionDeployment(nodeEnv: string, baseUrl: string): boolean {
  return nodeEnv === "production" && !isLoopbackOrigin(baseUrl);
}

const SECRET_NAMES = ["OAUTH_JWT_SECRET", "PLUGIN_JWT_SECRET", "ENCRYPTION_KEY"] as const;

/** Development secrets are made once and kept under the data directory, so sessions survive restarts. */
function devSecrets(dataDir: string): Record<(typeof SECRET_NAMES)[number], string> {
  const file = join(dataDir, "dev-secrets.json");
  if (existsSync(file)) return JSON.parse(readFileSync(file, "utf8"));
  const secrets = {
    OAUTH_JWT_SECRET: randomBytes(32).toString("base64url"),
    PLUGIN_JWT_SECRET: randomBytes(32).toString("base64url"),
    ENCRYPTION_KEY: randomBytes(32).toString("hex"),
  };
  try {
    mkdirSync(dataDir, { recursive: true });
    writeFileSync(file, JSON.stringify(secrets, null, 2), { mode: 0o600 });
  } catch (err) {
    throw new Error(
      `DATA_DIR ${dataDir} is not writable, so the development secrets cannot be kept there (${(err as Error).message}); ` +
        "make it writable or set OAUTH_JWT_SECRET, PLUGIN_JWT_SECRET and ENCRYPTION_KEY.",
    );
  }
  return secrets;
}

/** The one place settings are read from the environment and validated. */
export function loadEnv(source: Record<string, string | undefined> = process.env): Env {
  const parsed = EnvSchema.safeParse(Object.fromEntries(Object.entries(source).filter(([, v]) => v !== "")));
  const unknown = Object.keys(source).filter(
    (name) => !KNOWN.has(name) && OWN_PREFIXES.some((prefix) => name.startsWith(prefix)),
  );
  if (unknown.length > 0) {
    throw new Error(
      `Invalid configuration: ${unknown.join(", ")}: not a setting (see docs/operations.md for the list).`,
    );
  }
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ");
    throw new Error(`Invalid configuration: ${problems}`);
  }
  const e = parsed.data;
  // The data directory is chosen at run time; the ignore hint keeps Next's file tracer from bundling the repo.
  const dataDir = resolve(/*turbopackIgnore: true*/ e.DATA_DIR ?? join(findRepoRoot(process.cwd()), ".data"));
  // Without it a real deployment would think it runs locally: generated secrets, cookies without `Secure`.
  if (e.NODE_ENV === "production" && !e.BASE_URL) {
    throw new Error(
      "Refusing to start with NODE_ENV=production and no BASE_URL: set it to the public origin (https://...), " +
        "or to http://localhost:PORT to try a production build locally.",
    );
  }
  const baseUrl = (e.BASE_URL ?? `http://localhost:${e.PORT}`).replace(/\/+$/, "");
  const missing = SECRET_NAMES.filter((n) => !e[n]);
  if (missing.length > 0 && isProductionDeployment(e.NODE_ENV, baseUrl)) {
    throw new Error(`Refusing to start in production (BASE_URL ${baseUrl}) without ${missing.join(", ")}.`);
  }
  // Private webhook URLs would let any team make the server call into its own network.
  if (e.WEBHOOKS_ALLOW_PRIVATE_URLS === "true" && isProductionDeployment(e.NODE_ENV, baseUrl)) {
    throw new Error(
      `Refusing to start in production (BASE_URL ${baseUrl}) with WEBHOOKS_ALLOW_PRIVATE_URLS=true; it is for local development.`,
    );
  }
  if (e.AUTOUSER_ALLOW_PRIVATE_URLS === "true" && isProductionDeployment(e.NODE_ENV, baseUrl)) {
    throw new Error(
      `Refusing to start in production (BASE_URL ${baseUrl}) with AUTOUSER_ALLOW_PRIVATE_URLS=true; it is for local development.`,
    );
  }
  if ((e.AUTOUSER_PROVIDER === undefined) !== (e.AUTOUSER_MODEL === undefined)) {
    throw new Error(
      "Invalid configuration: AUTOUSER_PROVIDER and AUTOUSER_MODEL are set together or not at all.",
    );
  }
  if (e.AUTOUSER_PROVIDER === "openai-compatible" && !e.AUTOUSER_BASE_URL) {
    throw new Error("Invalid configuration: AUTOUSER_PROVIDER=openai-compatible needs AUTOUSER_BASE_URL.");
  }
  const generated = missing.length > 0 ? devSecrets(dataDir) : undefined;
  return {
    nodeEnv: e.NODE_ENV,
    databaseUrl: e.DATABASE_URL,
    databasePrepareStatements: e.DATABASE_PREPARE_STATEMENTS === "true",
    databaseConnectTimeoutMs: e.DATABASE_CONNECT_TIMEOUT_MS,
    databaseStatementTimeoutMs: e.DATABASE_STATEMENT_TIMEOUT_MS,
    redisUrl: e.REDIS_URL,
    redisCommandTimeoutMs: e.REDIS_COMMAND_TIMEOUT_MS,
    redisKeyPrefix: e.REDIS_KEY_PREFIX,
    rateLimitMode: e.RATE_LIMIT_MODE,
    trustedProxyCount: e.TRUSTED_PROXY_COUNT,
    port: e.PORT,
    baseUrl,
    dataDir,
    oauthJwtSecret: e.OAUTH_JWT_SECRET ?? generated!.OAUTH_JWT_SECRET,
    pluginJwtSecret: e.PLUGIN_JWT_SECRET ?? generated!.PLUGIN_JWT_SECRET,
    encryptionKey: e.ENCRYPTION_KEY ?? generated!.ENCRYPTION_KEY,
    embeddedWorker: e.EMBEDDED_WORKER === "true",
    webhooksEnabled: e.WEBHOOKS_ENABLED === "true",
    billingEnabled: e.BILLING_ENABLED === "true",
    webhooksAllowPrivateUrls: e.WEBHOOKS_ALLOW_PRIVATE_URLS === "true",
    sseHeartbeatMs: e.SSE_HEARTBEAT_MS,
    passwordHashLogN: e.PASSWORD_HASH_LOG_N,
    platformModel:
      e.AUTOUSER_PROVIDER && e.AUTOUSER_MODEL
        ? {
            provider: e.AUTOUSER_PROVIDER,
            model: e.AUTOUSER_MODEL,
            apiKey: e.AUTOUSER_API_KEY ?? null,
            baseUrl: e.AUTOUSER_BASE_URL ?? null,
          }
        : null,
    autouserConcurrency: e.AUTOUSER_CONCURRENCY,
    autouserAllowPrivateUrls: e.AUTOUSER_ALLOW_PRIVATE_URLS === "true",
    chromiumPath: e.CHROMIUM_PATH,
    browserWsEndpoint: e.BROWSER_WS_ENDPOINT,
    smtpUrl: e.SMTP_URL,
    emailFrom: e.EMAIL_FROM,
    shutdownTimeoutMs: e.SHUTDOWN_TIMEOUT_MS,
    workerHealthPort: e.WORKER_HEALTH_PORT,
    metricsPort: e.METRICS_PORT,
    metricsHost: e.METRICS_HOST,
    metricsToken: e.METRICS_TOKEN,
    logLevel: e.LOG_LEVEL,
    logFormat: e.LOG_FORMAT ?? (e.NODE_ENV === "development" ? "pretty" : "json"),
    otelEndpoint: e.OTEL_EXPORTER_OTLP_ENDPOINT,
    otelCaptureContent: e.OTEL_CAPTURE_CONTENT === "true",
    s3: e.S3_BUCKET
      ? {
          bucket: e.S3_BUCKET,
          endpoint: e.S3_ENDPOINT,
          region: e.S3_REGION,
          accessKeyId: e.S3_ACCESS_KEY_ID,
          secretAccessKey: e.S3_SECRET_ACCESS_KEY,
          forcePathStyle: e.S3_FORCE_PATH_STYLE === "true",
        }
      : null,
  };
}
