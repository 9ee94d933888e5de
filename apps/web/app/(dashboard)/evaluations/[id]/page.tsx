import type { Metadata } from "next";
import { EvaluationDetail } from "@/features/evaluations";

export const metadata: Metadata = { title: "Evaluation" };

export default async function EvaluationPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return <EvaluationDetail id={id} />;
}
