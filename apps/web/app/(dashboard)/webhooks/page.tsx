import type { Metadata } from "next";
import { WebhooksPanel } from "@/components/webhooks/webhooks-panel";
import { WebhooksGate } from "@/features/navigation/webhooks-gate";

export const metadata: Metadata = { title: "Webhooks" };

export default function WebhooksPage() {
  return (
    <WebhooksGate title="Webhooks">
      <WebhooksPanel />
    </WebhooksGate>
  );
}
