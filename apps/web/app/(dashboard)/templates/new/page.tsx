import type { Metadata } from "next";
import { TemplateCreate } from "@/features/templates";

export const metadata: Metadata = { title: "New template" };

export default function NewTemplatePage() {
  return <TemplateCreate />;
}
