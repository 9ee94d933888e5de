import type { Rubricon } from "@rubricon/api";

/**
 * The process-wide app sits in a global slot (packages/api/src/app.ts, `getRubricon`), filled before Next serves a
 * request: by server.ts in production and by instrumentation.ts under `next dev`. Pages and route handlers read the
 * slot instead of importing `@rubricon/api`: an import would put the whole API, the autouser browser included, into
 * their module graph, and Next's standalone trace would copy playwright-core without the files it reads at run time.
 */
const PROCESS_APP = Symbol.for("rubricon.processApp");

export function processApp(): Promise<Rubricon> {
  const app = (globalThis as { [PROCESS_APP]?: Promise<Rubricon> })[PROCESS_APP];
  if (!app) return Promise.reject(new Error("the app is not open in this process (start it with server.ts)"));
  return app;
}

/** Hands a request to the app's pipeline. Only `next dev` reaches the API through these route handlers. */
export async function forwardToApi(req: Request): Promise<Response> {
  return (await processApp()).handle(req);
}
