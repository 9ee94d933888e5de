import type { Metadata } from "next";
import { EvaluationRate } from "@/features/rating";

export const metadata: Metadata = { title: "Rate" };

export default async function RatePage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return <EvaluationRate id={id} />;
}
