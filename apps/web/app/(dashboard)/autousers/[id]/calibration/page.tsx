import type { Metadata } from "next";
import { CalibrationView } from "@/components/autouser-runs/calibration-view";

export const metadata: Metadata = { title: "Calibration" };

export default async function CalibrationPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return <CalibrationView autouserId={id} />;
}
