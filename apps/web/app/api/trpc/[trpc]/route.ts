import { getRubricon } from "@rubricon/api";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

async function handler(req: Request): Promise<Response> {
  return (await getRubricon()).handleTrpc(req);
}

export const GET = handler;
export const POST = handler;
