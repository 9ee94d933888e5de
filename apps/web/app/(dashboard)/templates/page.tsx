import type { Metadata } from "next";
import { TemplateList } from "@/features/templates";

export const metadata: Metadata = { title: "Templates" };

export default function TemplatesPage() {
  return <TemplateList />;
}
