"use client";

import Link from "next/link";
import { PageHeader } from "@/ui/page-header";
import { useFeatureFlags } from "./feature-flags";
import { SETTINGS_NAV, WEBHOOKS_SETTING } from "./nav-items";

/** `/settings`: every section of the Settings area with a line on what it holds. */
export function SettingsOverview() {
  const { webhooksEnabled } = useFeatureFlags();
  return (
    <>
      <PageHeader title="Settings" description="Your team, access, integrations and plan." />
      <ul className="settings-grid">
        {SETTINGS_NAV.map((item) => {
          const off = item.feature === "webhooks" && !webhooksEnabled;
          return (
            <li key={item.href} className="card settings-card">
              <h2>
                <Link href={item.href}>{item.label}</Link>
              </h2>
              <p className="muted">{item.description}</p>
              {off && (
                <p className="small muted">
                  Off on this deployment. An operator turns it on with <code>{WEBHOOKS_SETTING}</code>.
                </p>
              )}
            </li>
          );
        })}
      </ul>
    </>
  );
}
