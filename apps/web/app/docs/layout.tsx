import Link from "next/link";
import type { ReactNode } from "react";

/**
 * The reference is public, like the API document it renders: an error's `doc_url` opens without signing in. Its
 * bar leads back to the dashboard.
 */
export default function DocsLayout({ children }: { children: ReactNode }) {
  return (
    <>
      <header className="topbar">
        <div className="topbar-inner">
          <Link href="/evaluations" className="brand">
            <span className="brand-mark" aria-hidden="true">
              R
            </span>
            <span className="docs-brand-word">Rubricon</span>
          </Link>
          <nav aria-label="Reference" className="docs-nav">
            <Link href="/docs" className="nav-link">
              API reference
            </Link>
            <Link href="/docs/errors" className="nav-link">
              Error codes
            </Link>
            <Link href="/evaluations" className="nav-link">
              Dashboard
            </Link>
          </nav>
        </div>
      </header>
      {children}
    </>
  );
}
