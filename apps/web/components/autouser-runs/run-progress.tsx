"use client";

import type { AutouserRun, AutouserStatus } from "@rubricon/contracts";
import Link from "next/link";
import { formatDateTime } from "@/lib/format";

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

/** One row per run: its autouser, agent, bar, figures and a stop button while it can still be stopped. */
export function RunRow({
  run,
  label,
  evaluationId,
  onStop,
  stopping,
}: {
  run: AutouserRun;
  /** From `runLabels`: unique among the evaluation's runs. */
  label: string;
  evaluationId: string;
  onStop: (runId: string) => void;
  stopping: boolean;
}) {
  const progress = run.plannedRatings === 0 ? 0 : run.ratingsCreated / run.plannedRatings;
  return (
    <tr data-testid="autouser-run" data-status={run.status}>
      <td>
        <Link href={`/evaluations/${evaluationId}/autouser-runs/${run.id}`}>{label}</Link>
        <div className="muted small">Started {formatDateTime(run.startedAt ?? run.createdAt)}</div>
      </td>
      <td className="capitalize" data-testid="run-status">
        {run.status}
      </td>
      <td style={{ minWidth: 120 }}>
        <ProgressBar label={`Progress of ${label}`} value={run.status === "completed" ? 1 : progress} />
        <span className="muted small">
          {run.ratingsCreated} of {run.plannedRatings}
        </span>
      </td>
      <td className="small">{run.model ?? "—"}</td>
      <td className="num small">${run.estimatedCostUsd.toFixed(4)}</td>
      <td>
        {active(run) && (
          <button
            type="button"
            className="button button-danger-ghost"
            disabled={stopping}
            aria-label={`Stop ${label}`}
            onClick={() => onStop(run.id)}
          >
            Stop
          </button>
        )}
        {run.error && <span className="muted small">{run.error}</span>}
      </td>
    </tr>
  );
}
