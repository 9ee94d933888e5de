"use client";

import type { Autouser, CalibrationOptimizeResult, CalibrationStatus } from "@rubricon/contracts";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useEffect, useState } from "react";
import { errorCode } from "@/lib/errors";
import { formatDateTime } from "@/lib/format";
import { useTRPC } from "@/lib/trpc";
import { DataTable, Field, FormError, Loading, PageHeader, useConfirm } from "@/ui";
import { ProgressBar } from "./run-progress";

const CALIBRATION_TEXT: Record<Autouser["calibrationStatus"], string> = {
  uncalibrated: "Not calibrated",
  calibrating: "Calibrating",
  calibrated: "Calibrated",
  frozen: "Frozen",
};

const fmt = (v: number | null | undefined) => (v === null || v === undefined ? "—" : v.toFixed(3));
const interval = (ci: { lower: number; upper: number } | null) =>
  ci ? `${fmt(ci.lower)} to ${fmt(ci.upper)}` : "—";

/** Start a calibration: the rubric measured, the evaluation whose human ratings it is held against, how many. */
function CalibrationForm({
  autouserId,
  onStarted,
}: {
  autouserId: string;
  onStarted: (c: CalibrationStatus) => void;
}) {
  const trpc = useTRPC();
  const rubrics = useQuery(trpc.autousers.rubrics.queryOptions({ id: autouserId, limit: 100 }));
  const evaluations = useQuery(trpc.evaluations.list.queryOptions({ limit: 100 }));
  const [rubricId, setRubricId] = useState("");
  const [evaluationId, setEvaluationId] = useState("");
  const [sampleSize, setSampleSize] = useState(20);
  const start = useMutation(trpc.autouserRuns.calibrate.mutationOptions({ onSuccess: onStarted }));

  return (
    <form
      className="stack"
      aria-label="Start a calibration"
      onSubmit={(e) => {
        e.preventDefault();
        start.mutate({ id: autouserId, rubricId, evaluationId, sampleSize });
      }}
    >
      <Field label="Rubric">
        {(props) => (
          <select {...props} value={rubricId} onChange={(e) => setRubricId(e.target.value)} required>
            <option value="">Choose a rubric</option>
            {(rubrics.data?.data ?? []).map((r) => (
              <option key={r.id} value={r.id}>
                {r.name} v{r.version}
                {r.isFrozen ? " (frozen)" : ""}
              </option>
            ))}
          </select>
        )}
      </Field>
      <Field label="Evaluation rated by humans">
        {(props) => (
          <select {...props} value={evaluationId} onChange={(e) => setEvaluationId(e.target.value)} required>
            <option value="">Choose an evaluation</option>
            {(evaluations.data?.data ?? []).map((ev) => (
              <option key={ev.id} value={ev.id}>
                {ev.name}
              </option>
            ))}
          </select>
        )}
      </Field>
      <Field label="Sample size">
        {(props) => (
          <input
            {...props}
            type="number"
            min={1}
            max={200}
            value={sampleSize}
            onChange={(e) => setSampleSize(Math.max(1, Math.min(200, Number(e.target.value) || 1)))}
          />
        )}
      </Field>
      <FormError error={start.error} />
      <div className="button-row">
        <button type="submit" className="button button-primary" disabled={start.isPending}>
          Start calibration
        </button>
      </div>
    </form>
  );
}

function Figures({ figures }: { figures: NonNullable<CalibrationStatus["figures"]> }) {
  return (
    <>
      <dl className="facts">
        <dt>Krippendorff’s α ({figures.metric})</dt>
        <dd data-testid="calibration-alpha">
          {figures.krippendorffAlpha === null
            ? (figures.alphaUndefinedReason ?? "undefined")
            : fmt(figures.krippendorffAlpha)}
        </dd>
        <dt>95% interval</dt>
        <dd>{interval(figures.alphaCi95)}</dd>
        <dt>Comparisons</dt>
        <dd>{figures.comparisons}</dd>
      </dl>
      {Object.keys(figures.bias).length > 0 && (
        <DataTable
          bare
          label="Bias per template"
          rows={Object.entries(figures.bias)}
          rowKey={([template]) => template}
          columns={[
            { header: "Template", rowHeader: true, cell: ([template]) => template },
            { header: "Bias (autouser − humans)", numeric: true, cell: ([, b]) => fmt(b.mean) },
            { header: "95% interval", cell: ([, b]) => interval(b.ci95) },
            { header: "Comparisons", numeric: true, cell: ([, b]) => b.comparisons },
          ]}
        />
      )}
    </>
  );
}

/**
 * Before and after of a weight optimisation, both measured on the held-out comparisons only, so the gain shown is
 * not the fit's own.
 */
function Optimisation({ result }: { result: CalibrationOptimizeResult }) {
  const templates = Object.keys(result.after.weights).sort();
  return (
    <div className="stack" data-testid="calibration-optimisation">
      <p className="small">
        Fitted on {result.split.fit} comparisons, measured on {result.split.heldOut} held out. Proposed as
        rubric v{result.rubric.version}, not frozen: calibrate it and freeze it to use it.
      </p>
      <DataTable
        bare
        label="Alpha before and after"
        rows={[["Before", result.before] as const, ["After", result.after] as const]}
        rowKey={([name]) => name}
        columns={[
          { header: "Weights", rowHeader: true, cell: ([name]) => name },
          {
            header: "α on held-out",
            numeric: true,
            cell: ([name, f]) => (
              <span data-testid={`optimised-alpha-${name.toLowerCase()}`}>{fmt(f.krippendorffAlpha)}</span>
            ),
          },
          { header: "95% interval", cell: ([, f]) => interval(f.alphaCi95) },
          ...templates.map((t) => ({
            header: t,
            numeric: true,
            cell: ([, f]: readonly [string, CalibrationOptimizeResult["before"]]) => f.weights[t] ?? 1,
          })),
        ]}
      />
    </div>
  );
}

/** An autouser's calibration: start one, follow it, read alpha and bias, and freeze the rubric it measured. */
export function CalibrationView({ autouserId }: { autouserId: string }) {
  const trpc = useTRPC();
  const confirm = useConfirm();
  const queryClient = useQueryClient();
  const autouser = useQuery(trpc.autousers.get.queryOptions({ id: autouserId }));
  const key = trpc.autouserRuns.calibration.queryKey({ id: autouserId });
  const calibration = useQuery({
    ...trpc.autouserRuns.calibration.queryOptions({ id: autouserId }),
    retry: false,
    refetchInterval: (q) => (q.state.data?.status === "running" ? 2_000 : false),
  });
  const freeze = useMutation(
    trpc.autouserRuns.freeze.mutationOptions({
      onSuccess: async () => {
        await queryClient.invalidateQueries(trpc.autousers.pathFilter());
      },
    }),
  );
  const optimise = useMutation(
    trpc.autouserRuns.optimize.mutationOptions({
      onSuccess: async () => {
        await queryClient.invalidateQueries(trpc.autousers.rubrics.pathFilter());
      },
    }),
  );
  const calibrationState = calibration.data?.status;
  // The autouser's own calibration status moves with the calibration's: read it again when that changes.
  useEffect(() => {
    if (calibrationState)
      void queryClient.invalidateQueries(trpc.autousers.get.queryFilter({ id: autouserId }));
  }, [calibrationState, queryClient, trpc, autouserId]);
  const none = calibration.isError && errorCode(calibration.error) === "resource_not_found";
  const c = calibration.data;

  return (
    <>
      <PageHeader
        breadcrumb={
          <>
            <Link href="/autousers">Autousers</Link>
            <span aria-hidden="true">/</span>
            <Link href={`/autousers/${autouserId}`}>{autouser.data?.name ?? "Autouser"}</Link>
            <span aria-hidden="true">/</span>
          </>
        }
        title="Calibration"
        meta={
          autouser.data && (
            <span className="muted small" data-testid="autouser-calibration-status">
              {CALIBRATION_TEXT[autouser.data.calibrationStatus]}
            </span>
          )
        }
      />

      {autouser.data?.isSystem ? (
        <p className="alert alert-info" role="note">
          System autousers are calibrated by Rubricon. Duplicate this one to calibrate a copy on your team’s
          ratings.
        </p>
      ) : (
        <div className="detail-grid">
          <section className="card" aria-labelledby="calibrate-heading">
            <h2 id="calibrate-heading">New calibration</h2>
            <p className="muted small">
              The autouser rates comparisons humans rated, most-rated first; its verdicts are not ratings of
              the evaluation.
            </p>
            <CalibrationForm
              autouserId={autouserId}
              onStarted={(started) => queryClient.setQueryData(key, started)}
            />
          </section>

          <section className="card" aria-labelledby="latest-heading">
            <h2 id="latest-heading">Latest calibration</h2>
            {calibration.isPending && <Loading>Loading the calibration…</Loading>}
            {none && <p className="muted">This autouser has not been calibrated yet.</p>}
            {!none && <FormError error={calibration.error} />}
            {c && (
              <div className="stack">
                <p>
                  <span className="chip capitalize" data-testid="calibration-status">
                    {c.status}
                  </span>{" "}
                  <span className="muted small">
                    rubric v{c.rubricVersion} · {c.sampleSize} sampled · {formatDateTime(c.updatedAt)}
                  </span>
                </p>
                <ProgressBar
                  label="Calibration progress"
                  value={c.progress.comparisons === 0 ? 0 : c.progress.rated / c.progress.comparisons}
                />
                <p className="small">
                  {c.progress.rated} of {c.progress.comparisons} comparisons rated
                </p>
                <FormError error={c.error} />
                {c.figures && <Figures figures={c.figures} />}
                {c.status === "completed" && (
                  <div className="button-row">
                    <button
                      type="button"
                      className="button button-primary"
                      disabled={freeze.isPending || freeze.isSuccess}
                      onClick={async () => {
                        const ok = await confirm({
                          message:
                            "Freeze this rubric? It becomes the autouser's active rubric and never changes.",
                          confirmLabel: "Freeze",
                        });
                        if (ok) freeze.mutate({ id: autouserId });
                      }}
                    >
                      {freeze.isSuccess ? "Frozen" : "Freeze rubric"}
                    </button>
                    <button
                      type="button"
                      className="button"
                      disabled={optimise.isPending}
                      onClick={() => optimise.mutate({ id: autouserId })}
                    >
                      Optimise weights
                    </button>
                  </div>
                )}
                <FormError error={optimise.error} />
                {optimise.data && <Optimisation result={optimise.data} />}
                <FormError error={freeze.error} />
                {freeze.isSuccess && (
                  <p className="alert alert-info" role="status">
                    Rubric v{freeze.data.rubric.version} is frozen and active.
                  </p>
                )}
              </div>
            )}
          </section>
        </div>
      )}
    </>
  );
}
