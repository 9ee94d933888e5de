import type { Metadata } from "next";
import { EvaluationCreateForm } from "@/components/evaluation-create-form";

export const metadata: Metadata = { title: "New evaluation" };

export default function NewEvaluationPage() {
  return <EvaluationCreateForm />;
}
