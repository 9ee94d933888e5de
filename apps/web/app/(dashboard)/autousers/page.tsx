import type { Metadata } from "next";
import { AutouserList } from "@/features/autousers";

export const metadata: Metadata = { title: "Autousers" };

export default function AutousersPage() {
  return <AutouserList />;
}
