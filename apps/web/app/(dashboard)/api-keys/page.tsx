import type { Metadata } from "next";
import { ApiKeysPanel } from "@/components/api-keys-panel";

export const metadata: Metadata = { title: "API keys" };

export default function ApiKeysPage() {
  return <ApiKeysPanel />;
}
