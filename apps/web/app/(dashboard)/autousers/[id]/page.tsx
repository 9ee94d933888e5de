import type { Metadata } from "next";
import { AutouserDetail } from "@/features/autousers";

export const metadata: Metadata = { title: "Autouser" };

export default async function AutouserPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return <AutouserDetail id={id} />;
}
