import type { Metadata } from "next";
import { ModelKeysPanel } from "@/features/model-keys";

export const metadata: Metadata = { title: "Model keys" };

export default function ModelKeysPage() {
  return <ModelKeysPanel />;
}
