import { getRubricon } from "@rubricon/api";

/**
 * Hands a request to the app's pipeline (the same one `pnpm start` serves from node:http); one process-wide
 * instance shares the database pool. Only `next dev` reaches the API through these route handlers.
 */
export async function forwardToApi(req: Request): Promise<Response> {
  return (await getRubricon()).handle(req);
}
