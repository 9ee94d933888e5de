import { forwardToApi } from "@/lib/api-handler";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = forwardToApi;
export const HEAD = forwardToApi;
export const PUT = forwardToApi;
