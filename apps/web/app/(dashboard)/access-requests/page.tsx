import type { Metadata } from "next";
import { AccessRequestInbox } from "@/components/sharing/access-request-inbox";

export const metadata: Metadata = { title: "Access requests" };

export default function AccessRequestsPage() {
  return <AccessRequestInbox />;
}
