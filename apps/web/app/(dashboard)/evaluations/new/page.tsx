import type { Metadata } from "next";
import { EvaluationCreateForm } from "@/features/evaluations";

export const metadata: Metadata = { title: "New evaluation" };

export default function NewEvaluationPage() {
  return <EvaluationCreateForm />;
}
