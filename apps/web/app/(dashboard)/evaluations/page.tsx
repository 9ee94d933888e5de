import type { Metadata } from "next";
import { EvaluationList } from "@/features/evaluations";

export const metadata: Metadata = { title: "Evaluations" };

export default function EvaluationsPage() {
  return <EvaluationList />;
}
