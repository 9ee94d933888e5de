"use client";

import { type ReactNode, useState } from "react";
import { RatingCard } from "./rating-card";
import type { Comparison, EvaluationKind, RatingBody, RatingTemplate, SubmitResult } from "./types";

interface RatingFlowProps {
  kind: EvaluationKind;
  comparisons: Comparison[];
  templates: RatingTemplate[];
  /** Comparisons this rater has already rated or skipped; they are not shown again. */
  ratedIds: readonly string[];
  submit: (body: RatingBody) => Promise<SubmitResult>;
  /** Shown once every comparison is done. */
  finished: (summary: { total: number; rated: number; skipped: number }) => ReactNode;
}

/** Walks a rater through the comparisons they have not rated yet, one at a time, in position order. */
export function RatingFlow({ kind, comparisons, templates, ratedIds, submit, finished }: RatingFlowProps) {
  const [done, setDone] = useState<Set<string>>(() => new Set(ratedIds));
  const [counts, setCounts] = useState({ rated: 0, skipped: 0 });
  const [notice, setNotice] = useState<string | null>(null);
  const [closedMessage, setClosedMessage] = useState<string | null>(null);

  const ordered = [...comparisons].sort((a, b) => a.position - b.position || a.id.localeCompare(b.id));
  const total = ordered.length;
  const doneCount = ordered.filter((c) => done.has(c.id)).length;
  const current = ordered.find((c) => !done.has(c.id));

  if (total === 0) {
    return (
      <div className="empty">
        <h2>Nothing to rate</h2>
        <p className="muted">This evaluation has no comparisons.</p>
      </div>
    );
  }

  // The window can close while someone rates (deadline, target reached, ended by the team): say so plainly.
  if (closedMessage) {
    return (
      <div className="empty" role="status">
        <h2>No longer taking ratings</h2>
        <p className="muted">{closedMessage}</p>
        {doneCount > 0 && <p className="muted">Your earlier ratings are saved.</p>}
      </div>
    );
  }

  if (!current) {
    return (
      <>
        <Progress done={total} total={total} />
        {finished({ total, rated: counts.rated, skipped: counts.skipped })}
      </>
    );
  }

  async function onSubmit(body: RatingBody): Promise<string | null> {
    const result = await submit(body);
    // A rating saved earlier (another tab, a double submit) counts as done: move on rather than block.
    if (result.ok || result.code === "rating_already_exists") {
      const skipped = body.skipReason !== undefined;
      setCounts((c) => (skipped ? { ...c, skipped: c.skipped + 1 } : { ...c, rated: c.rated + 1 }));
      setNotice(
        result.ok ? (skipped ? "Comparison skipped." : "Rating saved.") : "You had already rated that one.",
      );
      setDone((prev) => new Set(prev).add(body.comparisonId));
      window.scrollTo({ top: 0, behavior: "smooth" });
      return null;
    }
    if (result.code === "evaluation_not_running") {
      // The server's message names ids and instants; a rater only needs to know their last answer did not count.
      setClosedMessage("The evaluation closed before this last rating was saved, so it was not recorded.");
      return null;
    }
    return result.message;
  }

  return (
    <>
      <Progress done={doneCount} total={total} />
      <p className="visually-hidden" aria-live="polite">
        {notice}
      </p>
      <RatingCard
        key={current.id}
        comparison={current}
        templates={templates}
        kind={kind}
        onSubmit={onSubmit}
      />
    </>
  );
}

function Progress({ done, total }: { done: number; total: number }) {
  const position = Math.min(done + 1, total);
  return (
    <div className="rate-progress">
      <span className="rate-progress-text" data-testid="rating-progress">
        {done >= total ? `${total} of ${total} done` : `${position} of ${total}`}
      </span>
      <div
        className="rate-progress-bar"
        role="progressbar"
        aria-label="Comparisons rated"
        aria-valuemin={0}
        aria-valuemax={total}
        aria-valuenow={done}
        aria-valuetext={`${done} of ${total} rated`}
      >
        <span style={{ width: `${(done / total) * 100}%` }} />
      </div>
    </div>
  );
}
