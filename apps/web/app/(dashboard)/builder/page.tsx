import type { Metadata } from "next";
import { ConversationList } from "@/features/builder";

export const metadata: Metadata = { title: "Builder" };

export default function BuilderPage() {
  return <ConversationList />;
}
