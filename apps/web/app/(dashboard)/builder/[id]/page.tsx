import type { Metadata } from "next";
import { BuilderChat } from "@/features/builder";

export const metadata: Metadata = { title: "Builder chat" };

export default async function BuilderChatPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return <BuilderChat id={id} />;
}
