import type { ReactNode } from "react";

/**
 * What shows while something loads: one line, announced politely. Pages name what is loading ("Loading runs…") so
 * a slow part of a page says which part it is.
 */
export function Loading({ children = "Loading…", small = false }: { children?: ReactNode; small?: boolean }) {
  return (
    <p className={small ? "muted small" : "muted"} aria-live="polite">
      {children}
    </p>
  );
}
