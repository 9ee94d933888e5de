import type { Metadata } from "next";
import { ConnectedAppsPanel } from "@/features/connected-apps";

export const metadata: Metadata = { title: "Connected apps" };

export default function ConnectedAppsPage() {
  return <ConnectedAppsPanel />;
}
