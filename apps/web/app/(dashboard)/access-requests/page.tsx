import type { Metadata } from "next";
import { AccessRequestInbox } from "@/features/sharing";

export const metadata: Metadata = { title: "Access requests" };

export default function AccessRequestsPage() {
  return <AccessRequestInbox />;
}
