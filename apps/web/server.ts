/**
 * The production server (`pnpm start`). Everything the app's pipeline owns (`/api/v1`, `/api/trpc`, `/api/auth`,
 * `/api/share`, `/api/oauth`, `/.well-known`, `/mcp`) goes from node:http straight to it; pages go to Next.js.
 * Next's route-handler layer cost about two thirds of the REST API's throughput (docs/benchmarks.md), and the API
 * needs nothing from it. Start-up, health, metrics and the graceful stop are the API package's `serverMain`.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { serverMain } from "@rubricon/api";
import next from "next";

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

// Next.js replaces the global `Date` while it prepares, so that a prerender with `cacheComponents` can notice a
// page reading the clock. The dashboard does not use `cacheComponents`, where the wrapper only costs: every date
// the API reads from Postgres or makes went through it (a list page's CPU fell from 1.06 to 0.85 ms without it).
const NativeDate = Date;

serverMain({
  fallback: async (env) => {
    const web = next({ dev: false, dir, port: env.port });
    const handleWeb = web.getRequestHandler();
    await web.prepare();
    globalThis.Date = NativeDate;
    Object.defineProperty(NativeDate.prototype, "constructor", { value: NativeDate });
    return (req, res) => void handleWeb(req, res);
  },
});
