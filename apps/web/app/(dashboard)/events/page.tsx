import type { Metadata } from "next";
import { EventLog } from "@/components/webhooks/event-log";
import { WebhooksGate } from "@/features/navigation/webhooks-gate";

export const metadata: Metadata = { title: "Events" };

export default function EventsPage() {
  return (
    <WebhooksGate title="Events">
      <EventLog />
    </WebhooksGate>
  );
}
