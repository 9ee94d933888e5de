import { forwardToApi } from "@/lib/api-handler";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = forwardToApi;
export const POST = forwardToApi;
export const PUT = forwardToApi;
export const PATCH = forwardToApi;
export const DELETE = forwardToApi;
export const HEAD = forwardToApi;
export const OPTIONS = forwardToApi;
