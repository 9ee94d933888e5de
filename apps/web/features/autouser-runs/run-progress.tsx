"use client";

import type { AutouserRun, AutouserStatus } from "@rubricon/contracts";
import Link from "next/link";
import { formatDateTime } from "@/lib/format";
import { ACTIONS_HEADER, type Column, type RowProps } from "@/ui";

export function ProgressBar({ label, value }: { label: string; value: number }) {
  const percent = Math.round(value * 100);
  return (
    <div
      className="usage-bar"
      role="progressbar"
      aria-label={label}
      aria-valuemin={0}
      aria-valuemax={100}
      aria-valuenow={percent}
    >
      <div className="usage-bar-fill" style={{ width: `${percent}%` }} />
    </div>
  );
}

const STATUS_ORDER = ["queued", "running", "completed", "failed", "cancelled"] as const;

export function StatusCounts({ summary }: { summary: AutouserStatus["summary"] }) {
  return (
    <ul className="chip-row" aria-label="Run counts">
      {STATUS_ORDER.map((s) => (
        <li key={s} className="chip" data-testid={`count-${s}`}>
          <span className="capitalize">{s}</span> {summary[s]}
        </li>
      ))}
    </ul>
  );
}

const active = (r: AutouserRun) => r.status === "queued" || r.status === "running";

/** The runs table's columns: its autouser, status, bar, figures and a stop button while it can still be stopped. */
export function runColumns({
  labels,
  evaluationId,
  onStop,
  stopping,
}: {
  /** From `runLabels`: unique among the evaluation's runs. */
  labels: Map<string, string>;
  evaluationId: string;
  onStop: (runId: string) => void;
  stopping: boolean;
}): Column<AutouserRun>[] {
  const label = (run: AutouserRun) => labels.get(run.id) ?? run.id;
  return [
    {
      header: "Run",
      className: "cell-name",
      cell: (run) => (
        <>
          <Link href={`/evaluations/${evaluationId}/autouser-runs/${run.id}`}>{label(run)}</Link>
          <div className="muted small">Started {formatDateTime(run.startedAt ?? run.createdAt)}</div>
        </>
      ),
    },
    { header: "Status", className: "capitalize", testId: "run-status", cell: (run) => run.status },
    {
      header: "Ratings",
      className: "cell-progress",
      cell: (run) => {
        const progress = run.plannedRatings === 0 ? 0 : run.ratingsCreated / run.plannedRatings;
        return (
          <>
            <ProgressBar
              label={`Progress of ${label(run)}`}
              value={run.status === "completed" ? 1 : progress}
            />
            <span className="muted small">
              {run.ratingsCreated} of {run.plannedRatings}
            </span>
          </>
        );
      },
    },
    { header: "Model", className: "small", cell: (run) => run.model ?? "—" },
    {
      header: "Cost",
      numeric: true,
      className: "small",
      cell: (run) => `$${run.estimatedCostUsd.toFixed(4)}`,
    },
    {
      header: ACTIONS_HEADER,
      cell: (run) => (
        <>
          {active(run) && (
            <button
              type="button"
              className="button button-danger-ghost"
              disabled={stopping}
              aria-label={`Stop ${label(run)}`}
              onClick={() => onStop(run.id)}
            >
              Stop
            </button>
          )}
          {run.error && <span className="muted small">{run.error}</span>}
        </>
      ),
    },
  ];
}

export const runRowProps = (run: AutouserRun): RowProps => ({
  "data-testid": "autouser-run",
  "data-status": run.status,
});
