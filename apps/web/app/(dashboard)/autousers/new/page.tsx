import type { Metadata } from "next";
import { AutouserCreate } from "@/features/autousers";

export const metadata: Metadata = { title: "New autouser" };

export default function NewAutouserPage() {
  return <AutouserCreate />;
}
