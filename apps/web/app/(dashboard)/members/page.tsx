import type { Metadata } from "next";
import { MembersPanel } from "@/features/teams";

export const metadata: Metadata = { title: "Members" };

export default function MembersPage() {
  return <MembersPanel />;
}
