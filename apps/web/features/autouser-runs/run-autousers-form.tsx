"use client";

import { type Comparison, ESTIMATED_USD_PER_AUTOUSER_RUN, type Evaluation } from "@rubricon/contracts";
import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { startAutouserRuns } from "@/lib/autouser-runs";
import { errorCode, errorMessage } from "@/lib/errors";
import { plural } from "@/lib/format";
import { useTRPC } from "@/lib/trpc";
import { Field, FormError, Loading, SubmitButton } from "@/ui";

const usd = new Intl.NumberFormat("en", { style: "currency", currency: "USD", minimumFractionDigits: 2 });

/** What the user needs to read when starting fails; quota gets a pointer to where more can be had. */
function startError(error: unknown): string {
  if (errorCode(error) === "quota_exceeded")
    return `${errorMessage(error)} See Plan and usage for this month's allowance.`;
  return errorMessage(error);
}

/**
 * Picks autousers (system personas and the team's), optionally some comparisons and the agents per autouser,
 * prices the plan before anything starts, and queues the runs.
 */
export function RunAutousersForm({
  evaluation,
  comparisons,
  onStarted,
}: {
  evaluation: Evaluation;
  comparisons: Comparison[];
  onStarted: () => void;
}) {
  const trpc = useTRPC();
  const autousers = useQuery(trpc.autousers.list.queryOptions({ limit: 100, teamId: evaluation.teamId }));
  const byok = useQuery(trpc.byok.get.queryOptions({ teamId: evaluation.teamId }));
  const [picked, setPicked] = useState<Set<string>>(
    () => new Set(evaluation.selectedAutousers.map((a) => a.autouserId)),
  );
  const [chosenComparisons, setChosenComparisons] = useState<Set<string>>(new Set());
  const [agentCount, setAgentCount] = useState(1);
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<string | null>(null);
  // One key per plan: a retry of the same plan (lost answer, double click) replays instead of queuing twice.
  const [attempt, setAttempt] = useState<{ plan: string; key: string } | null>(null);

  const usable = autousers.data?.data ?? [];
  const comparisonCount = chosenComparisons.size || comparisons.length;
  const plannedRatings = picked.size * agentCount * comparisonCount;
  const model = byok.data?.effective;
  const toggle = (set: Set<string>, id: string) => {
    const next = new Set(set);
    if (next.has(id)) next.delete(id);
    else next.add(id);
    return next;
  };

  async function start() {
    const input = {
      autouserIds: [...picked],
      agentCount,
      ...(chosenComparisons.size > 0 ? { comparisonIds: [...chosenComparisons] } : {}),
    };
    const plan = JSON.stringify(input);
    const key = attempt?.plan === plan ? attempt.key : crypto.randomUUID();
    setAttempt({ plan, key });
    setPending(true);
    setError(null);
    try {
      await startAutouserRuns(evaluation.id, input, key);
      setAttempt(null);
      onStarted();
    } catch (e) {
      setError(startError(e));
    } finally {
      setPending(false);
    }
  }

  return (
    <form
      className="stack"
      aria-label="Run autousers"
      onSubmit={(e) => {
        e.preventDefault();
        void start();
      }}
    >
      <fieldset className="form-fieldset">
        <legend>Autousers</legend>
        {autousers.isPending && <Loading>Loading autousers…</Loading>}
        <FormError error={autousers.error} />
        {usable.map((a) => (
          <label key={a.id} className="checkbox">
            <input
              type="checkbox"
              checked={picked.has(a.id)}
              onChange={() => setPicked((s) => toggle(s, a.id))}
            />{" "}
            {a.name} <span className="muted small">{a.isSystem ? "System" : "Team"}</span>
          </label>
        ))}
      </fieldset>

      {comparisons.length > 1 && (
        <fieldset className="form-fieldset">
          <legend>Comparisons (all when none is ticked)</legend>
          {comparisons.map((c) => (
            <label key={c.id} className="checkbox">
              <input
                type="checkbox"
                checked={chosenComparisons.has(c.id)}
                onChange={() => setChosenComparisons((s) => toggle(s, c.id))}
              />{" "}
              {c.name ?? `Comparison ${c.position + 1}`}
            </label>
          ))}
        </fieldset>
      )}

      <Field label="Agents per autouser">
        {(props) => (
          <input
            {...props}
            type="number"
            min={1}
            max={50}
            value={agentCount}
            onChange={(e) => setAgentCount(Math.max(1, Math.min(50, Number(e.target.value) || 1)))}
          />
        )}
      </Field>

      <p className="small" data-testid="run-estimate">
        {plural(plannedRatings, "autouser rating")} planned
        {" · "}
        {model && model.source !== "none"
          ? `about ${usd.format(plannedRatings * ESTIMATED_USD_PER_AUTOUSER_RUN)} on ${model.model ?? "the model"} (${model.source === "byok" ? "your key" : "platform default"})`
          : "free: no model is set, so the heuristic judge rates from measurements"}
      </p>

      <FormError error={error} />
      <div className="button-row">
        <SubmitButton pending={pending} pendingLabel="Starting…" disabled={plannedRatings === 0}>
          Start runs
        </SubmitButton>
      </div>
    </form>
  );
}
