"use client";

import { type FormEvent, useEffect, useId, useRef, useState } from "react";
import { Field, FormError, SubmitButton } from "@/ui";
import { PreferenceButtons, ScaleButtons } from "./scale-controls";
import { StimulusView } from "./stimulus-view";
import type { Comparison, EvaluationKind, RatingBody, RatingTemplate } from "./types";

/**
 * Seconds the comparison has been on screen. Time in a background tab is left out, so a rater who leaves the
 * page open overnight does not report a day spent on one design.
 */
function useVisibleSeconds(): () => number {
  const clock = useRef<{ total: number; since: number | null }>({ total: 0, since: null });
  useEffect(() => {
    const c = clock.current;
    c.since = document.hidden ? null : Date.now();
    const onVisibility = () => {
      if (document.hidden && c.since !== null) {
        c.total += Date.now() - c.since;
        c.since = null;
      } else if (!document.hidden && c.since === null) {
        c.since = Date.now();
      }
    };
    document.addEventListener("visibilitychange", onVisibility);
    return () => document.removeEventListener("visibilitychange", onVisibility);
  }, []);
  return () => {
    const c = clock.current;
    const ms = c.total + (c.since === null ? 0 : Date.now() - c.since);
    return Math.min(86_400, Math.round(ms / 1000));
  };
}

export function comparisonTitle(comparison: Comparison, kind: EvaluationKind): string {
  return comparison.name || `${kind === "SSE" ? "Design" : "Comparison"} ${comparison.position + 1}`;
}

interface RatingCardProps {
  comparison: Comparison;
  templates: RatingTemplate[];
  kind: EvaluationKind;
  /** Sends the rating; resolves to an error message to show, or null once it is saved. */
  onSubmit: (body: RatingBody) => Promise<string | null>;
}

/** One comparison: the design(s), a scale per template, an optional reason, and Submit or Skip. */
export function RatingCard({ comparison, templates, kind, onSubmit }: RatingCardProps) {
  const uid = useId();
  const headingRef = useRef<HTMLHeadingElement>(null);
  const elapsed = useVisibleSeconds();
  const [values, setValues] = useState<Record<string, number>>({});
  const [justification, setJustification] = useState("");
  const [skipping, setSkipping] = useState(false);
  const [skipReason, setSkipReason] = useState("");
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<string | null>(null);

  // Each comparison mounts a fresh card; moving focus to its title tells keyboard and screen-reader users.
  useEffect(() => {
    headingRef.current?.focus({ preventScroll: true });
  }, []);

  const remaining = templates.filter((t) => values[t.id] === undefined).length;

  async function send(body: RatingBody) {
    setPending(true);
    setError(null);
    const message = await onSubmit(body);
    // On success the card is replaced by the next one; only a failure leaves it here to update.
    if (message) {
      setError(message);
      setPending(false);
    }
  }

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (remaining > 0 || pending) return;
    const text = justification.trim();
    void send({
      comparisonId: comparison.id,
      dimensionRatings: values,
      ...(text ? { justification: text } : {}),
      timeSpentSeconds: elapsed(),
    });
  }

  function skip() {
    const reason = skipReason.trim();
    if (!reason) {
      setError("Say briefly why you are skipping this comparison.");
      return;
    }
    void send({
      comparisonId: comparison.id,
      dimensionRatings: {},
      skipReason: reason,
      timeSpentSeconds: elapsed(),
    });
  }

  const Control = kind === "SSE" ? ScaleButtons : PreferenceButtons;

  return (
    <article className="card rate-card" aria-labelledby={`${uid}-title`}>
      <h2 id={`${uid}-title`} ref={headingRef} tabIndex={-1} className="rate-title">
        {comparisonTitle(comparison, kind)}
      </h2>
      <StimulusView comparison={comparison} />

      <form className="rate-form" onSubmit={submit} noValidate>
        {templates.map((t) => (
          <section key={t.id} className="rate-question">
            <div className="rate-question-head">
              <h3 id={`${uid}-${t.id}-q`}>{t.question ?? t.name}</h3>
              {t.question && (
                <span id={`${uid}-${t.id}-name`} className="muted small">
                  {t.name}
                </span>
              )}
            </div>
            {t.guidelines && (
              <details className="guidelines">
                <summary>Guidelines</summary>
                <p className="guidelines-text">{t.guidelines}</p>
              </details>
            )}
            <Control
              template={t}
              value={values[t.id]}
              onChange={(v) => setValues((prev) => ({ ...prev, [t.id]: v }))}
              labelledBy={t.question ? `${uid}-${t.id}-name ${uid}-${t.id}-q` : `${uid}-${t.id}-q`}
              disabled={pending}
            />
          </section>
        ))}

        <Field
          id={`${uid}-why`}
          label={
            <>
              Justification <span className="muted">(optional)</span>
            </>
          }
        >
          {(props) => (
            <textarea
              {...props}
              rows={3}
              maxLength={10_000}
              value={justification}
              onChange={(e) => setJustification(e.target.value)}
              placeholder="What made you choose these scores?"
            />
          )}
        </Field>

        {skipping && (
          <div className="skip-box">
            <Field
              id={`${uid}-skip`}
              label="Reason for skipping"
              hint="Skipped comparisons are recorded but left out of the results."
            >
              {(props) => (
                <textarea
                  {...props}
                  rows={2}
                  maxLength={500}
                  value={skipReason}
                  onChange={(e) => setSkipReason(e.target.value)}
                  placeholder="For example: the page did not load"
                  // biome-ignore lint/a11y/noAutofocus: the field appears because the rater just asked to skip
                  autoFocus
                />
              )}
            </Field>
            <div className="button-row">
              <button type="button" className="button" onClick={skip} disabled={pending}>
                Skip comparison
              </button>
              <button
                type="button"
                className="button button-ghost"
                onClick={() => {
                  setSkipping(false);
                  setError(null);
                }}
                disabled={pending}
              >
                Keep rating
              </button>
            </div>
          </div>
        )}

        <FormError error={error} />

        <div className="form-actions">
          <span className="hint form-actions-hint" aria-live="polite">
            {remaining === 0
              ? "Ready to submit."
              : `${remaining} of ${templates.length} ${templates.length === 1 ? "question" : "questions"} left to answer.`}
          </span>
          {!skipping && (
            <button
              type="button"
              className="button button-ghost"
              onClick={() => setSkipping(true)}
              disabled={pending}
            >
              Skip
            </button>
          )}
          <SubmitButton pending={pending} pendingLabel="Submitting…" disabled={remaining > 0}>
            Submit rating
          </SubmitButton>
        </div>
      </form>
    </article>
  );
}
