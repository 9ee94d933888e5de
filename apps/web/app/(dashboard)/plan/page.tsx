import type { Metadata } from "next";
import { PlanPanel } from "@/features/plan";

export const metadata: Metadata = { title: "Plan and usage" };

export default function PlanPage() {
  return <PlanPanel />;
}
