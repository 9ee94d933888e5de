"use client";

import type { ReactNode } from "react";
import { PageHeader } from "@/ui/page-header";
import { useFeatureFlags } from "./feature-flags";
import { WEBHOOKS_SETTING } from "./nav-items";

/**
 * Webhooks and the event log are behind a deployment flag. While it is off their pages say so, and which setting
 * turns them on, instead of offering forms the API would refuse.
 */
export function WebhooksGate({ title, children }: { title: string; children: ReactNode }) {
  const { webhooksEnabled } = useFeatureFlags();
  if (webhooksEnabled) return <>{children}</>;
  return (
    <>
      <PageHeader title={title} />
      <section className="card stack" data-testid="webhooks-off">
        <h2>Webhooks are off on this deployment</h2>
        <p>
          Webhooks and the event log are a beta feature. An operator turns them on by starting the server with{" "}
          <code>{WEBHOOKS_SETTING}</code> in its environment.
        </p>
      </section>
    </>
  );
}
