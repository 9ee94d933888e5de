import { getRubricon } from "@rubricon/api";

/** Hands a request to the API app; one process-wide instance shares the database pool. */
export async function forwardToApi(req: Request): Promise<Response> {
  return (await getRubricon()).handle(req);
}
