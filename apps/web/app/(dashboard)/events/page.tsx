import type { Metadata } from "next";
import { EventLog } from "@/components/webhooks/event-log";

export const metadata: Metadata = { title: "Events" };

export default function EventsPage() {
  return <EventLog />;
}
