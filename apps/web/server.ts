/**
 * The production server (`pnpm start`). Everything the app's pipeline owns (`/api/v1`, `/api/trpc`, `/api/auth`,
 * `/api/share`, `/api/oauth`, `/.well-known`, `/mcp`) goes from node:http straight to it; pages go to Next.js.
 * Next's route-handler layer cost about two thirds of the REST API's throughput (README, Benchmarks), and the API
 * needs nothing from it. Start-up, health, metrics and the graceful stop are the API package's `serverMain`.
 */
import { fileURLToPath } from "node:url";
import { serverMain } from "@rubricon/api";
import next from "next";

// Next.js replaces the global `Date` while it prepares, so that a prerender with `cacheComponents` can notice a
// page reading the clock. The dashboard does not use `cacheComponents`, where the wrapper only costs: every date
// the API reads from Postgres or makes went through it (a list page's CPU fell from 1.06 to 0.85 ms without it).
const NativeDate = Date;

serverMain({
  fallback: async (env) => {
    const web = next({ dev: false, dir: fileURLToPath(new URL(".", import.meta.url)), port: env.port });
    const handleWeb = web.getRequestHandler();
    await web.prepare();
    globalThis.Date = NativeDate;
    Object.defineProperty(NativeDate.prototype, "constructor", { value: NativeDate });
    return (req, res) => void handleWeb(req, res);
  },
});
