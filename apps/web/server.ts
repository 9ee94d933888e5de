/**
 * The production server (`pnpm start`). Everything the app's pipeline owns (`/api/v1`, `/api/trpc`, `/api/auth`,
 * `/api/share`, `/api/oauth`, `/.well-known`, `/mcp`) goes from node:http straight to it; pages go to Next.js.
 * Next's route-handler layer cost about two thirds of the REST API's throughput (README, Benchmarks), and the API
 * needs nothing from it.
 */
import { existsSync, readFileSync } from "node:fs";
import { createServer } from "node:http";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { getRubricon, loadEnv, startEmbeddedWorker } from "@rubricon/api";
import next from "next";

const env = loadEnv();
// The server runs beside the Next build it serves: apps/web in the repository, or the deployable folder that
// `pnpm build` assembles (bundled there as server.mjs, see docs/deployment.md).
const dir = fileURLToPath(new URL(".", import.meta.url));
// The deployable folder has no next.config.ts (nor the compiler to read it); Next then takes the configuration
// its build recorded, as its own standalone server does.
const recorded = join(dir, ".next/required-server-files.json");
if (!existsSync(join(dir, "next.config.ts")) && existsSync(recorded)) {
  process.env.__NEXT_PRIVATE_STANDALONE_CONFIG ??= JSON.stringify(
    JSON.parse(readFileSync(recorded, "utf8")).config,
  );
}
// This server opens the app and starts the background loops itself; instrumentation.ts does it only under
// `next dev`, so Next's own compiled copy of the API is not loaded at start (it held tens of MB for nothing).
process.env.RUBRICON_CUSTOM_SERVER = "1";
const web = next({ dev: false, dir, port: env.port });
const handleWeb = web.getRequestHandler();

// Next.js replaces the global `Date` while it prepares, so that a prerender with `cacheComponents` can notice a
// page reading the clock. The dashboard does not use `cacheComponents`, where the wrapper only costs: every date
// the API reads from Postgres or makes went through it (a list page's CPU fell from 1.06 to 0.85 ms without it).
const NativeDate = Date;

const HSTS = "max-age=31536000; includeSubDomains";
const hsts = env.baseUrl.startsWith("https://");

async function main(): Promise<void> {
  await web.prepare();
  globalThis.Date = NativeDate;
  Object.defineProperty(NativeDate.prototype, "constructor", { value: NativeDate });
  const app = await getRubricon();
  startEmbeddedWorker(app.services);
  const server = createServer((req, res) => {
    // Clients reach this server through a proxy or directly; TRUSTED_PROXY_COUNT says how far to believe the chain.
    // Browsers that reached the site over https keep to it (the API's answers carry the same header).
    if (hsts) res.setHeader("Strict-Transport-Security", HSTS);
    if (app.owns((req.url ?? "/").split("?", 1)[0]!)) app.handleNode(req, res, "proxied");
    else void handleWeb(req, res);
  });
  server.listen(env.port, () => {
    process.stdout.write(`Rubricon ready on ${env.baseUrl} (port ${env.port})\n`);
  });
  const stop = () => {
    server.close(() => process.exit(0));
    server.closeIdleConnections();
    // Open event streams never go idle: give in-flight requests a moment, then end the streams too.
    setTimeout(() => server.closeAllConnections(), 5_000).unref();
  };
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
}

main().catch((err: unknown) => {
  process.stderr.write(
    `server failed to start: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
  );
  process.exit(1);
});
