import type { Metadata } from "next";
import { PairPlugin } from "@/components/pair-plugin";

export const metadata: Metadata = { title: "Pair the plugin or extension" };

export default async function PairPage({ searchParams }: { searchParams: Promise<{ code?: string }> }) {
  const { code } = await searchParams;
  return <PairPlugin initialCode={typeof code === "string" ? code : ""} />;
}
