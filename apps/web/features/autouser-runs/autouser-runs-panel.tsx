"use client";

import type { Comparison, Evaluation } from "@rubricon/contracts";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { useAutouserStream } from "@/lib/autouser-runs";
import { errorMessage } from "@/lib/errors";
import { useTRPC } from "@/lib/trpc";
import { DataTable, FormError, useConfirm } from "@/ui";
import { RunAutousersForm } from "./run-autousers-form";
import { runLabels } from "./run-label";
import { ProgressBar, runColumns, runRowProps, StatusCounts } from "./run-progress";

const STREAM_TEXT = {
  connecting: "Connecting…",
  live: "Live",
  done: "Up to date",
  error: "The live feed stopped; reload the page to see the latest.",
} as const;

/** The evaluation's autouser runs: start more, watch them live, stop one or all. */
export function AutouserRunsPanel({
  evaluation,
  comparisons,
}: {
  evaluation: Evaluation;
  comparisons: Comparison[];
}) {
  const trpc = useTRPC();
  const confirm = useConfirm();
  const queryClient = useQueryClient();
  const [generation, setGeneration] = useState(0);
  const [showForm, setShowForm] = useState(false);
  const [stopError, setStopError] = useState<string | null>(null);
  const { status, state } = useAutouserStream(evaluation.id, generation);
  const autousers = useQuery(trpc.autousers.list.queryOptions({ limit: 100, teamId: evaluation.teamId }));
  const names = new Map((autousers.data?.data ?? []).map((a) => [a.id, a.name]));
  const stop = useMutation(
    trpc.autouserRuns.stop.mutationOptions({
      onSuccess: () => setStopError(null),
      onError: (e) => setStopError(errorMessage(e)),
    }),
  );

  const active = status ? status.summary.queued + status.summary.running : 0;
  const runs = status?.runs ?? [];
  const labels = runLabels(runs, (id) => names.get(id) ?? id);

  return (
    <section className="card" aria-labelledby="autouser-runs-heading">
      <div className="section-head">
        <h2 id="autouser-runs-heading">Autouser runs</h2>
        <div className="button-row">
          {active > 0 && (
            <button
              type="button"
              className="button button-danger-ghost"
              disabled={stop.isPending}
              onClick={async () => {
                const ok = await confirm({
                  message: "Stop every queued and running autouser run?",
                  confirmLabel: "Stop all",
                  destructive: true,
                });
                if (ok) stop.mutate({ id: evaluation.id });
              }}
            >
              Stop all
            </button>
          )}
          <button
            type="button"
            className="button"
            onClick={() => setShowForm((v) => !v)}
            aria-expanded={showForm}
          >
            Run autousers
          </button>
        </div>
      </div>

      {showForm && (
        <RunAutousersForm
          evaluation={evaluation}
          comparisons={comparisons}
          onStarted={() => {
            setShowForm(false);
            setGeneration((g) => g + 1);
            void queryClient.invalidateQueries(trpc.evaluations.get.queryFilter({ id: evaluation.id }));
          }}
        />
      )}

      <FormError error={stopError} />

      <p className="muted small" data-testid="stream-state">
        {STREAM_TEXT[state]}
      </p>

      {status && status.summary.total === 0 && (
        <p className="muted">No autouser has run on this evaluation yet.</p>
      )}
      {status && status.summary.total > 0 && (
        <>
          <ProgressBar label="Overall autouser progress" value={status.progress} />
          <p className="small" data-testid="overall-progress">
            {status.ratingsCreated} of {status.plannedRatings} ratings
            {status.estimatedSecondsLeft !== null && active > 0
              ? ` · about ${status.estimatedSecondsLeft}s left`
              : ""}
          </p>
          <StatusCounts summary={status.summary} />
          <DataTable
            bare
            label="Autouser runs"
            rows={runs}
            rowKey={(run) => run.id}
            rowProps={runRowProps}
            columns={runColumns({
              labels,
              evaluationId: evaluation.id,
              stopping: stop.isPending,
              onStop: (runId) => stop.mutate({ id: evaluation.id, runIds: [runId] }),
            })}
          />
        </>
      )}
    </section>
  );
}
