import type { Metadata } from "next";
import { WebhooksGate } from "@/features/navigation";
import { EventLog } from "@/features/webhooks";

export const metadata: Metadata = { title: "Events" };

export default function EventsPage() {
  return (
    <WebhooksGate title="Events">
      <EventLog />
    </WebhooksGate>
  );
}
