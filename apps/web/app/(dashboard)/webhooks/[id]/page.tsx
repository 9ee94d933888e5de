import type { Metadata } from "next";
import { WebhooksGate } from "@/features/navigation";
import { WebhookDetail } from "@/features/webhooks";

export const metadata: Metadata = { title: "Webhook endpoint" };

export default async function WebhookPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return (
    <WebhooksGate title="Webhook endpoint">
      <WebhookDetail id={id} />
    </WebhooksGate>
  );
}
