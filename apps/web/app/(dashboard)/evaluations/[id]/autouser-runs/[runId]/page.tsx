import type { Metadata } from "next";
import { RunDetail } from "@/features/autouser-runs";

export const metadata: Metadata = { title: "Autouser run" };

export default async function AutouserRunPage({
  params,
}: {
  params: Promise<{ id: string; runId: string }>;
}) {
  const { id, runId } = await params;
  return <RunDetail evaluationId={id} runId={runId} />;
}
