import type { Metadata } from "next";
import { ApiKeysPanel } from "@/features/api-keys";

export const metadata: Metadata = { title: "API keys" };

export default function ApiKeysPage() {
  return <ApiKeysPanel />;
}
