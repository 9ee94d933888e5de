import type { Metadata } from "next";
import { AutouserCreate } from "@/components/autouser-detail";

export const metadata: Metadata = { title: "New autouser" };

export default function NewAutouserPage() {
  return <AutouserCreate />;
}
