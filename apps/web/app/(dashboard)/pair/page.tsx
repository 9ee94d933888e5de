import type { Metadata } from "next";
import { PairPlugin } from "@/features/connected-apps";

export const metadata: Metadata = { title: "Pair the plugin or extension" };

export default async function PairPage({ searchParams }: { searchParams: Promise<{ code?: string }> }) {
  const { code } = await searchParams;
  return <PairPlugin initialCode={typeof code === "string" ? code : ""} />;
}
