/**
 * Opens the database (and runs migrations) when the server starts, not on the first request, and runs the
 * background loops in this process unless a separate worker does (`EMBEDDED_WORKER=false`).
 */
export async function register(): Promise<void> {
  // The production server (server.ts) does both itself, from its own bundle.
  if (process.env.NEXT_RUNTIME === "nodejs" && process.env.RUBRICON_CUSTOM_SERVER !== "1") {
    const { configureLogging, getRubricon, loadDotEnv, loadEnv, startEmbeddedWorker } = await import(
      "@rubricon/api"
    );
    loadDotEnv();
    configureLogging(loadEnv(), "web");
    startEmbeddedWorker((await getRubricon()).services);
  }
}
