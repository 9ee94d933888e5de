"use client";

import { type ReactNode, useEffect, useRef, useState } from "react";

/**
 * A box that scrolls sideways when its content is wider than the screen, and says so: shadows at the edges that hide
 * columns, and a line under it. While it overflows it is a named region in the tab order, so keyboard users can
 * scroll it with the arrow keys (WCAG scrollable-region-focusable).
 */
export function ScrollArea({
  children,
  className,
  label,
}: {
  children: ReactNode;
  className?: string;
  /** What scrolls, for the region's name ("Evaluations table"). */
  label?: string;
}) {
  const ref = useRef<HTMLElement>(null);
  const [overflow, setOverflow] = useState(false);

  useEffect(() => {
    const box = ref.current;
    if (!box) return;
    const measure = () => setOverflow(box.scrollWidth > box.clientWidth + 1);
    measure();
    const observer = new ResizeObserver(measure);
    observer.observe(box);
    const content = box.firstElementChild;
    if (content) observer.observe(content);
    return () => observer.disconnect();
  }, []);

  // One element throughout (a section is a region only while it has a name): swapping elements would leave the
  // observer watching a detached box. Focusable and named only while there is something to scroll to.
  const box = (
    <section
      ref={ref}
      className={className}
      data-overflow={overflow ? "true" : undefined}
      tabIndex={overflow ? 0 : undefined}
      aria-label={overflow ? `${label ?? "Table"}, scrolls sideways` : undefined}
    >
      {children}
    </section>
  );
  return (
    <>
      {box}
      {overflow && (
        <p className="scroll-hint" aria-hidden="true">
          Scroll sideways for more columns →
        </p>
      )}
    </>
  );
}
