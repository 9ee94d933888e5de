import type { Metadata } from "next";
import { AutouserList } from "@/components/autouser-list";

export const metadata: Metadata = { title: "Autousers" };

export default function AutousersPage() {
  return <AutouserList />;
}
