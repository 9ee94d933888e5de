import type { Metadata } from "next";
import { EvaluationList } from "@/components/evaluation-list";

export const metadata: Metadata = { title: "Evaluations" };

export default function EvaluationsPage() {
  return <EvaluationList />;
}
