import type { ReactNode } from "react";

/**
 * What shows while something loads: one line, announced politely. Pages name what is loading ("Loading runs…") so
 * a slow part of a page says which part it is. `page` is the placeholder for a whole page (the shell, a share link).
 */
export function Loading({
  children = "Loading…",
  small = false,
  page = false,
}: {
  children?: ReactNode;
  small?: boolean;
  page?: boolean;
}) {
  if (page) {
    return (
      <div className="page-loading" aria-live="polite">
        {children}
      </div>
    );
  }
  return (
    <p className={small ? "muted small" : "muted"} aria-live="polite">
      {children}
    </p>
  );
}
