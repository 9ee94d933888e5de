import type { Metadata } from "next";
import { ConnectedAppsPanel } from "@/components/connected-apps-panel";

export const metadata: Metadata = { title: "Connected apps" };

export default function ConnectedAppsPage() {
  return <ConnectedAppsPanel />;
}
