import type { Metadata } from "next";
import { ApiReference } from "@/features/api-reference";

export const metadata: Metadata = { title: "API reference" };

export default function DocsPage() {
  return (
    <main className="docs-reference">
      <ApiReference />
    </main>
  );
}
