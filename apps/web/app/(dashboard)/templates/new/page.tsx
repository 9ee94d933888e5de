import type { Metadata } from "next";
import { TemplateCreate } from "@/components/template-detail";

export const metadata: Metadata = { title: "New template" };

export default function NewTemplatePage() {
  return <TemplateCreate />;
}
