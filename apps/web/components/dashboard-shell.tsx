"use client";

import { useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { usePathname, useRouter } from "next/navigation";
import { type ReactNode, useEffect, useState } from "react";
import { NotificationBell } from "@/components/sharing/notification-bell";
import { errorMessage, isUnauthenticated } from "@/lib/errors";
import { useTRPC } from "@/lib/trpc";

const NAV = [
  { href: "/evaluations", label: "Evaluations" },
  { href: "/builder", label: "Builder" },
  { href: "/templates", label: "Templates" },
  { href: "/autousers", label: "Autousers" },
  { href: "/access-requests", label: "Access requests" },
  { href: "/members", label: "Members" },
  { href: "/webhooks", label: "Webhooks" },
  { href: "/events", label: "Events" },
  { href: "/api-keys", label: "API keys" },
  { href: "/settings/model-keys", label: "Model keys" },
  { href: "/connected-apps", label: "Connected apps" },
  { href: "/plan", label: "Plan" },
];

/** Every dashboard page needs a session: without one, the visitor is sent to sign in and comes back after. */
export function DashboardShell({ children }: { children: ReactNode }) {
  const trpc = useTRPC();
  const router = useRouter();
  const pathname = usePathname();
  const whoami = useQuery(trpc.auth.whoami.queryOptions({}));
  const signedOut = whoami.isError && isUnauthenticated(whoami.error);

  useEffect(() => {
    if (signedOut) router.replace(`/sign-in?next=${encodeURIComponent(pathname)}`);
  }, [signedOut, router, pathname]);

  if (whoami.isPending || signedOut) {
    return (
      <div className="page-loading" aria-live="polite">
        Loading…
      </div>
    );
  }

  return (
    <>
      <header className="topbar">
        <div className="topbar-inner">
          <Link href="/evaluations" className="brand">
            <span className="brand-mark" aria-hidden="true">
              R
            </span>
            Rubricon
          </Link>
          <nav aria-label="Main" className="nav">
            {NAV.map((item) => (
              <Link
                key={item.href}
                href={item.href}
                className="nav-link"
                aria-current={pathname.startsWith(item.href) ? "page" : undefined}
              >
                {item.label}
              </Link>
            ))}
          </nav>
          <div className="topbar-end">
            <NotificationBell />
            {whoami.data && <span className="muted small">{whoami.data.email}</span>}
            <SignOutButton />
          </div>
        </div>
      </header>
      <main className="container">
        {whoami.isError ? (
          <p className="alert alert-error" role="alert">
            {errorMessage(whoami.error)}
          </p>
        ) : (
          children
        )}
      </main>
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
      await fetch("/api/auth/sign-out", {
        method: "POST",
        credentials: "same-origin",
      });
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
