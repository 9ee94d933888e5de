import type { Metadata } from "next";
import { SettingsOverview } from "@/features/navigation";

export const metadata: Metadata = { title: "Settings" };

export default function SettingsPage() {
  return <SettingsOverview />;
}
