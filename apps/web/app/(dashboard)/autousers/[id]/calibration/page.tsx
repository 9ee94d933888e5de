import type { Metadata } from "next";
import { CalibrationView } from "@/features/autouser-runs";

export const metadata: Metadata = { title: "Calibration" };

export default async function CalibrationPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return <CalibrationView autouserId={id} />;
}
