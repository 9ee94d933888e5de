/**
 * The production server (`pnpm start`). `/api/v1/*` goes from node:http straight to the API handler; everything
 * else (pages, the dashboard's tRPC, sign-in, share links) to Next.js. Next's route-handler layer cost about
 * two thirds of the REST API's throughput (README, Benchmarks), and the REST surface needs nothing from it.
 */
import { createServer } from "node:http";
import { fileURLToPath } from "node:url";
import { API_PREFIX, getRubricon, loadEnv, startEmbeddedWorker } from "@rubricon/api";
import next from "next";

const env = loadEnv();
const web = next({ dev: false, dir: fileURLToPath(new URL(".", import.meta.url)), port: env.port });
const handleWeb = web.getRequestHandler();

function isApi(url: string | undefined): boolean {
  if (!url) return false;
  return url === API_PREFIX || url.startsWith(`${API_PREFIX}/`) || url.startsWith(`${API_PREFIX}?`);
}

async function main(): Promise<void> {
  await web.prepare();
  const app = await getRubricon();
  startEmbeddedWorker(app.services);
  const server = createServer((req, res) => {
    // Clients reach this server through a proxy or directly; TRUSTED_PROXY_COUNT says how far to believe the chain.
    if (isApi(req.url)) app.handleNode(req, res, "proxied");
    else void handleWeb(req, res);
  });
  server.listen(env.port, () => {
    process.stdout.write(`Rubricon ready on ${env.baseUrl} (port ${env.port})\n`);
  });
  const stop = () => server.close(() => process.exit(0));
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
}

main().catch((err: unknown) => {
  process.stderr.write(
    `server failed to start: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
  );
  process.exit(1);
});
