import type { Metadata } from "next";
import { ConversationList } from "@/components/builder/conversation-list";

export const metadata: Metadata = { title: "Builder" };

export default function BuilderPage() {
  return <ConversationList />;
}
