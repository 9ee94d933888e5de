"use client";

import { useQueries, useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { HumansVsAutousers } from "@/features/autouser-runs/humans-vs-autousers";
import { StatusBadge } from "@/features/evaluations/status-badge";
import { formatDateTime, plural } from "@/lib/format";
import { useTRPC } from "@/lib/trpc";
import { FormError, Loading, PageHeader } from "@/ui";
import { AgreementPanel } from "./agreement-panel";
import { AiInsightsPanel } from "./ai-insights-panel";
import { SseCard, SxsCard } from "./dimension-cards";
import { ComparisonTable, meanColumnsOf, RaterTable, useRaterName } from "./result-tables";
import { ResultTiles } from "./result-tiles";

export function EvaluationResultsView({ id }: { id: string }) {
  const trpc = useTRPC();
  const evaluation = useQuery(trpc.evaluations.get.queryOptions({ id }));
  const results = useQuery(trpc.results.results.queryOptions({ id }));
  const comparisons = useQuery(trpc.evaluations.comparisons.list.queryOptions({ id, limit: 100 }));
  const teamId = evaluation.data?.teamId ?? "";
  const raterName = useRaterName(id, teamId);
  // Only for the scale labels under the distribution bars; the charts do not wait for them.
  const templates = useQueries({
    queries: (evaluation.data?.selectedDimensionIds ?? []).map((templateId) =>
      trpc.templates.get.queryOptions({ id: templateId }),
    ),
  });

  if (evaluation.isPending || results.isPending) return <Loading>Loading results…</Loading>;
  const failure = evaluation.error ?? results.error;
  if (failure) {
    return (
      <div className="stack">
        <FormError error={failure} />
        <Link href={`/evaluations/${id}`}>Back to the evaluation</Link>
      </div>
    );
  }

  const e = evaluation.data!;
  const r = results.data!;
  const exportHref = (format: "csv" | "json" | "md") =>
    `/api/v1/evaluations/${encodeURIComponent(id)}/export?format=${format}`;

  const comparisonById = new Map((comparisons.data?.data ?? []).map((c) => [c.id, c]));
  const meanColumns = meanColumnsOf(r.dimensions);

  return (
    <>
      <PageHeader
        breadcrumb={
          <>
            <Link href="/evaluations">Evaluations</Link>
            <span aria-hidden="true">/</span>
            <Link href={`/evaluations/${id}`}>{e.name}</Link>
            <span aria-hidden="true">/</span>
          </>
        }
        title="Results"
        meta={
          <>
            <StatusBadge status={e.status} />
            <span className="type-tag">{e.type}</span>
            <span className="muted small">
              {plural(e.comparisonCount, "comparison")} · updated {formatDateTime(r.computedAt)}
            </span>
          </>
        }
        actions={
          <>
            {e.status === "Running" && (
              <Link href={`/evaluations/${id}/rate`} className="button">
                Rate
              </Link>
            )}
            <a href={exportHref("csv")} className="button" download>
              Export CSV
            </a>
            <a href={exportHref("json")} className="button" download={`${id}-ratings.json`}>
              Export JSON
            </a>
            <a href={exportHref("md")} className="button" download={`${id}-report.md`}>
              Report (Markdown)
            </a>
          </>
        }
      />

      <ResultTiles r={r} />

      {r.ratingCount > 0 && <AiInsightsPanel id={id} comparisonNames={new Map()} />}

      {r.ratingCount === 0 ? (
        <div className="empty">
          <h2>No ratings yet</h2>
          <p className="muted">
            Charts appear here as ratings arrive.{" "}
            {e.status === "Running" ? "Rate it yourself or send the share link to raters." : ""}
          </p>
          <div className="button-row">
            {e.status === "Running" && (
              <Link href={`/evaluations/${id}/rate`} className="button button-primary">
                Rate now
              </Link>
            )}
            <Link href={`/evaluations/${id}`} className="button">
              Share link and details
            </Link>
          </div>
        </div>
      ) : (
        <>
          <div className="result-list">
            {r.dimensions.map((d) =>
              d.kind === "sse" ? (
                <SseCard
                  key={d.templateId}
                  d={d}
                  labels={templates.find((q) => q.data?.id === d.templateId)?.data?.sseScaleLabels ?? null}
                />
              ) : (
                <SxsCard key={d.templateId} d={d} />
              ),
            )}
          </div>

          <HumansVsAutousers id={id} results={r} />

          <AgreementPanel id={id} />

          <ComparisonTable rows={r.perComparison} comparisonById={comparisonById} meanColumns={meanColumns} />

          <RaterTable rows={r.perRater} raterName={raterName} meanColumns={meanColumns} />
        </>
      )}
    </>
  );
}
