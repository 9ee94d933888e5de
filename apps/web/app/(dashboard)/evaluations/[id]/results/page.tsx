import type { Metadata } from "next";
import { EvaluationResultsView } from "@/features/results";

export const metadata: Metadata = { title: "Results" };

export default async function ResultsPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return <EvaluationResultsView id={id} />;
}
