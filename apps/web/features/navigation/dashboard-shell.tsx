"use client";

import { useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { usePathname, useRouter } from "next/navigation";
import { type ReactNode, useEffect, useId, useRef, useState } from "react";
import { NotificationBell } from "@/features/notifications";
import { apiRequest } from "@/lib/api";
import { isUnauthenticated } from "@/lib/errors";
import { useTRPC } from "@/lib/trpc";
import { FormError, Loading } from "@/ui";
import { FeatureFlagProvider } from "./feature-flags";
import { isCurrent, isSettingsPath, PRODUCT_NAV } from "./nav-items";
import { SettingsNav } from "./settings-nav";

// The reference sits beside Settings: it is where API users go from the dashboard, and it is public.
const TOP_NAV = [
  ...PRODUCT_NAV,
  { href: "/settings", label: "Settings" },
  { href: "/docs", label: "API reference" },
];

/** Every dashboard page needs a session: without one, the visitor is sent to sign in and comes back after. */
export function DashboardShell({
  children,
  webhooksEnabled,
}: {
  children: ReactNode;
  webhooksEnabled: boolean;
}) {
  const trpc = useTRPC();
  const router = useRouter();
  const pathname = usePathname();
  const whoami = useQuery(trpc.auth.whoami.queryOptions({}));
  const signedOut = whoami.isError && isUnauthenticated(whoami.error);

  useEffect(() => {
    if (signedOut) router.replace(`/sign-in?next=${encodeURIComponent(pathname)}`);
  }, [signedOut, router, pathname]);

  if (whoami.isPending || signedOut) {
    return <Loading page />;
  }

  const settings = isSettingsPath(pathname);
  const content = whoami.isError ? <FormError error={whoami.error} /> : children;

  return (
    <FeatureFlagProvider webhooksEnabled={webhooksEnabled}>
      <header className="topbar">
        <div className="topbar-inner">
          <Link href="/evaluations" className="brand">
            <span className="brand-mark" aria-hidden="true">
              R
            </span>
            Rubricon
          </Link>
          <TopMenu pathname={pathname} email={whoami.data?.email} />
        </div>
      </header>
      <main className="container">
        {settings ? (
          <div className="settings-layout">
            <SettingsNav pathname={pathname} />
            <div className="settings-content">{content}</div>
          </div>
        ) : (
          content
        )}
      </main>
    </FeatureFlagProvider>
  );
}

/**
 * The product links, the bell and the account. On wide screens they sit in the bar; on phones the links and the
 * account fold behind a Menu button (a disclosure: Escape closes it and returns focus to the button).
 */
function TopMenu({ pathname, email }: { pathname: string; email?: string }) {
  const [open, setOpen] = useState(false);
  const menuId = useId();
  const buttonRef = useRef<HTMLButtonElement>(null);

  // A followed link closes the menu.
  // biome-ignore lint/correctness/useExhaustiveDependencies: runs on navigation
  useEffect(() => setOpen(false), [pathname]);

  useEffect(() => {
    if (!open) return;
    const onKey = (event: KeyboardEvent) => {
      if (event.key !== "Escape") return;
      setOpen(false);
      buttonRef.current?.focus();
    };
    document.addEventListener("keydown", onKey);
    return () => document.removeEventListener("keydown", onKey);
  }, [open]);

  return (
    <>
      <div className="topbar-bell">
        <NotificationBell />
      </div>
      <button
        ref={buttonRef}
        type="button"
        className="button button-ghost menu-toggle"
        aria-expanded={open}
        aria-controls={menuId}
        onClick={() => setOpen(!open)}
      >
        <span aria-hidden="true" className="menu-icon" />
        Menu
      </button>
      <div id={menuId} className="topbar-menu" data-open={open ? "true" : undefined}>
        <nav aria-label="Main" className="nav">
          {TOP_NAV.map((item) => (
            <Link
              key={item.href}
              href={item.href}
              className="nav-link"
              aria-current={isCurrent(pathname, item.href) ? "page" : undefined}
            >
              {item.label}
            </Link>
          ))}
        </nav>
        <div className="topbar-end">
          {email && (
            <span className="muted small topbar-email" title={email}>
              {email}
            </span>
          )}
          <SignOutButton />
        </div>
      </div>
    </>
  );
}

function SignOutButton() {
  const router = useRouter();
  const queryClient = useQueryClient();
  const [pending, setPending] = useState(false);

  async function signOut() {
    setPending(true);
    try {
      // Signed out or not, the visitor leaves: a failure here must not keep them on the page.
      await apiRequest("/api/auth/sign-out", { method: "POST" }).catch(() => undefined);
    } finally {
      queryClient.clear();
      router.replace("/sign-in");
    }
  }

  return (
    <button type="button" className="button button-ghost" onClick={signOut} disabled={pending}>
      Sign out
    </button>
  );
}
