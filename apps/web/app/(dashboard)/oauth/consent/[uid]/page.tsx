import type { Metadata } from "next";
import { OAuthConsent } from "@/features/connected-apps";

export const metadata: Metadata = { title: "Authorize app" };

export default async function ConsentPage({ params }: { params: Promise<{ uid: string }> }) {
  const { uid } = await params;
  return <OAuthConsent uid={uid} />;
}
