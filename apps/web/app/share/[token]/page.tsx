import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { ShareRater } from "@/features/rating";
import { forwardToApi } from "@/lib/api-handler";

export const metadata: Metadata = { title: "Rate" };
export const dynamic = "force-dynamic";

/**
 * Draft, archived and unknown links answer a real 404. The check asks without the visitor's cookies: whether a
 * link exists does not depend on who opens it, and the rater cookie is scoped to the API path anyway.
 */
async function isShared(token: string): Promise<boolean> {
  const res = await forwardToApi(new Request(`http://localhost/api/share/${encodeURIComponent(token)}`));
  return res.status !== 404;
}

export default async function SharePage({ params }: { params: Promise<{ token: string }> }) {
  const { token } = await params;
  if (!(await isShared(token))) notFound();
  return <ShareRater token={token} />;
}
