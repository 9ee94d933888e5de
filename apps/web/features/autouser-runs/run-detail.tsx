"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { formatDateTime } from "@/lib/format";
import { useTRPC } from "@/lib/trpc";
import { DataTable, FormError, Loading, PageHeader } from "@/ui";

const ACTIVE = new Set(["queued", "running"]);

function actionText(action: Record<string, unknown>): string {
  const type = typeof action.type === "string" ? action.type : "step";
  const rest = Object.entries(action)
    .filter(([k]) => k !== "type")
    .map(([k, v]) => `${k}: ${typeof v === "string" ? v : JSON.stringify(v)}`);
  return rest.length > 0 ? `${type} (${rest.join(", ")})` : type;
}

/** A run's figures, its turns (action, address, tokens, latency, cost) and its screenshots. */
export function RunDetail({ evaluationId, runId }: { evaluationId: string; runId: string }) {
  const trpc = useTRPC();
  const refetchWhileActive = (q: { state: { data?: { status: string } } }) =>
    q.state.data && ACTIVE.has(q.state.data.status) ? 2_000 : false;
  const run = useQuery({
    ...trpc.autouserRuns.get.queryOptions({ id: evaluationId, runId }),
    refetchInterval: refetchWhileActive,
  });
  const active = run.data ? ACTIVE.has(run.data.status) : false;
  const turns = useQuery({
    ...trpc.autouserRuns.turns.queryOptions({ id: evaluationId, runId }),
    refetchInterval: active ? 2_000 : false,
  });
  const artifacts = useQuery({
    ...trpc.autouserRuns.artifacts.queryOptions({ id: evaluationId, runId }),
    // Its links are signed for five minutes: fetched again before they run out.
    refetchInterval: active ? 5_000 : 4 * 60_000,
  });

  // For the breadcrumb and the title line: the run's own record has only ids.
  const evaluation = useQuery(trpc.evaluations.get.queryOptions({ id: evaluationId }));
  const autouserId = run.data?.autouserId;
  const autouser = useQuery({
    ...trpc.autousers.get.queryOptions({ id: autouserId ?? "" }),
    enabled: autouserId !== undefined,
  });

  if (run.isPending) return <Loading>Loading run…</Loading>;
  if (run.isError) {
    return (
      <div className="stack">
        <FormError error={run.error} />
        <Link href={`/evaluations/${evaluationId}`}>Back to the evaluation</Link>
      </div>
    );
  }
  const r = run.data;
  const shotUrl = new Map((artifacts.data?.data ?? []).map((a) => [a.fileId, a.url]));
  return (
    <>
      <PageHeader
        breadcrumb={
          <>
            <Link href="/evaluations">Evaluations</Link>
            <span aria-hidden="true">/</span>
            <Link href={`/evaluations/${evaluationId}`}>{evaluation.data?.name ?? "Evaluation"}</Link>
            <span aria-hidden="true">/</span>
          </>
        }
        title="Autouser run"
        description={
          <span data-testid="run-label">
            {autouser.data?.name ?? r.autouserId} · agent {r.agentIndex + 1} · started{" "}
            {formatDateTime(r.startedAt ?? r.createdAt)}
          </span>
        }
        meta={
          <>
            <span className="chip capitalize" data-testid="run-status">
              {r.status}
            </span>
            <span className="muted small mono">{r.id}</span>
          </>
        }
      />

      <section className="card" aria-labelledby="run-figures-heading">
        <h2 id="run-figures-heading">Figures</h2>
        <dl className="facts">
          <dt>Ratings</dt>
          <dd data-testid="run-ratings">
            {r.ratingsCreated} of {r.plannedRatings}
          </dd>
          <dt>Judge</dt>
          <dd>
            {r.model ?? "—"}{" "}
            {r.credentialSource && <span className="muted small">({r.credentialSource})</span>}
          </dd>
          <dt>Tokens</dt>
          <dd>
            {r.inputTokens} in · {r.outputTokens} out
          </dd>
          <dt>Cost</dt>
          <dd>${r.estimatedCostUsd.toFixed(4)}</dd>
          <dt>Attempts</dt>
          <dd>{r.attemptCount}</dd>
          <dt>Started</dt>
          <dd>{formatDateTime(r.startedAt)}</dd>
          <dt>Finished</dt>
          <dd>{formatDateTime(r.completedAt)}</dd>
          {r.error && (
            <>
              <dt>Error</dt>
              <dd>{r.error}</dd>
            </>
          )}
        </dl>
      </section>

      <section className="card" aria-labelledby="turns-heading">
        <h2 id="turns-heading">Turns</h2>
        <FormError error={turns.error} />
        {turns.data && turns.data.data.length === 0 && <p className="muted">No turns yet.</p>}
        {turns.data && turns.data.data.length > 0 && (
          <DataTable
            bare
            label="Turns"
            rows={turns.data.data}
            rowKey={(t) => t.id}
            rowProps={() => ({ "data-testid": "run-turn" })}
            columns={[
              {
                header: "#",
                numeric: true,
                cell: (t) => `${t.attempt > 1 ? `${t.attempt}.` : ""}${t.turn}`,
              },
              {
                header: "Action",
                cell: (t) => (
                  <>
                    {actionText(t.action)}
                    {t.detail && <div className="muted small">{t.detail}</div>}
                  </>
                ),
              },
              { header: "Address", className: "mono small", cell: (t) => t.url ?? "—" },
              { header: "Tokens", numeric: true, cell: (t) => t.inputTokens + t.outputTokens },
              { header: "Latency", numeric: true, cell: (t) => `${t.latencyMs} ms` },
              { header: "Cost", numeric: true, cell: (t) => `$${t.costUsd.toFixed(4)}` },
              {
                header: "Screenshot",
                className: "mono small",
                cell: (t) =>
                  t.screenshot && shotUrl.get(t.screenshotFileId ?? "") ? (
                    <a href={shotUrl.get(t.screenshotFileId ?? "")} target="_blank" rel="noreferrer">
                      {t.screenshot}
                    </a>
                  ) : (
                    (t.screenshot ?? "—")
                  ),
              },
            ]}
          />
        )}
      </section>

      <section className="card" aria-labelledby="artifacts-heading">
        <h2 id="artifacts-heading">Artifacts</h2>
        <FormError error={artifacts.error} />
        {artifacts.data && artifacts.data.data.length === 0 && <p className="muted">No screenshots kept.</p>}
        {artifacts.data && artifacts.data.data.length > 0 && (
          <ul className="artifact-grid" data-testid="run-artifacts">
            {artifacts.data.data.map((a) => (
              <li key={a.fileId}>
                <figure className="figure">
                  <a href={a.url} target="_blank" rel="noreferrer">
                    {/* biome-ignore lint/performance/noImgElement: short-lived signed links that no image optimiser should cache */}
                    <img
                      className="artifact-thumb"
                      src={a.url}
                      alt={a.turn !== null ? `Screenshot of turn ${a.turn}` : a.name}
                      loading="lazy"
                    />
                  </a>
                  <figcaption>
                    <span className="mono">{a.name}</span>{" "}
                    <span className="muted">
                      {a.contentType} · {Math.round(a.size / 1024)} KB
                    </span>
                  </figcaption>
                </figure>
              </li>
            ))}
          </ul>
        )}
      </section>
    </>
  );
}
