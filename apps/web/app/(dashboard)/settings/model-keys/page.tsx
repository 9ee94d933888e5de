import type { Metadata } from "next";
import { ModelKeysPanel } from "@/components/model-keys/model-keys-panel";

export const metadata: Metadata = { title: "Model keys" };

export default function ModelKeysPage() {
  return <ModelKeysPanel />;
}
