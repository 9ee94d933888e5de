"use client";

import Link from "next/link";
import { useFeatureFlags } from "./feature-flags";
import { isCurrent, SETTINGS_NAV } from "./nav-items";

/** The Settings area's own menu: a column beside the page on wide screens, a wrapping row on phones. */
export function SettingsNav({ pathname }: { pathname: string }) {
  const { webhooksEnabled } = useFeatureFlags();
  return (
    <nav aria-label="Settings" className="settings-nav">
      <Link
        href="/settings"
        className="settings-nav-link"
        aria-current={pathname === "/settings" ? "page" : undefined}
      >
        Overview
      </Link>
      {SETTINGS_NAV.map((item) => {
        const off = item.feature === "webhooks" && !webhooksEnabled;
        return (
          <Link
            key={item.href}
            href={item.href}
            className="settings-nav-link"
            aria-current={pathname !== "/settings" && isCurrent(pathname, item.href) ? "page" : undefined}
          >
            {item.label}
            {off && <span className="badge badge-muted">Off</span>}
          </Link>
        );
      })}
    </nav>
  );
}
