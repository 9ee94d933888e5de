import { connection } from "next/server";
import type { ReactNode } from "react";
import { DashboardShell } from "@/features/navigation";

export default async function DashboardLayout({ children }: { children: ReactNode }) {
  // Read per request, not at build time: the same build runs with webhooks on or off.
  await connection();
  const webhooksEnabled = process.env.WEBHOOKS_ENABLED === "true";
  return <DashboardShell webhooksEnabled={webhooksEnabled}>{children}</DashboardShell>;
}
