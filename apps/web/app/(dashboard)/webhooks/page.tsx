import type { Metadata } from "next";
import { WebhooksGate } from "@/features/navigation";
import { WebhooksPanel } from "@/features/webhooks";

export const metadata: Metadata = { title: "Webhooks" };

export default function WebhooksPage() {
  return (
    <WebhooksGate title="Webhooks">
      <WebhooksPanel />
    </WebhooksGate>
  );
}
