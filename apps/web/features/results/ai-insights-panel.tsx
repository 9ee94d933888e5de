"use client";

import type { InsightQuote } from "@rubricon/contracts";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { errorMessage } from "@/lib/errors";
import { formatDateTime } from "@/lib/format";
import { useTRPC } from "@/lib/trpc";

function Quotes({ quotes }: { quotes: InsightQuote[] }) {
  return (
    <>
      {quotes.map((q) => (
        <blockquote key={`${q.ratingId}:${q.text}`} className="small" cite={q.ratingId}>
          “{q.text}” <span className="muted">({q.ratingId})</span>
        </blockquote>
      ))}
    </>
  );
}

/** The AI insights of an evaluation's ratings: asked for here, written by the worker, polled until ready. */
export function AiInsightsPanel({
  id,
  comparisonNames,
}: {
  id: string;
  comparisonNames: Map<string, string>;
}) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const insights = useQuery({
    ...trpc.results.insights.queryOptions({ id }),
    refetchInterval: (q) =>
      q.state.data?.status === "queued" || q.state.data?.status === "running" ? 1500 : false,
  });
  const regenerate = useMutation(
    trpc.results.regenerateInsights.mutationOptions({
      onSuccess: (data) => queryClient.setQueryData(trpc.results.insights.queryKey({ id }), data),
    }),
  );
  const i = insights.data;
  const busy = i?.status === "queued" || i?.status === "running";
  return (
    <section aria-label="AI insights" className="card">
      <div className="page-header">
        <h2>AI insights</h2>
        <button
          type="button"
          className="button"
          disabled={busy || regenerate.isPending}
          onClick={() => regenerate.mutate({ id })}
        >
          {i?.status === "not_started" ? "Summarise justifications" : "Regenerate"}
        </button>
      </div>
      {insights.isError && <p className="alert alert-error">{errorMessage(insights.error)}</p>}
      {regenerate.isError && <p className="alert alert-error">{errorMessage(regenerate.error)}</p>}
      {busy && (
        <p className="muted" role="status">
          Writing the summary…
        </p>
      )}
      {i?.status === "failed" && <p className="alert alert-error">{i.error?.message}</p>}
      {i?.summary && (
        <>
          <p className="muted small">
            {i.generator === "model"
              ? `Written by ${i.model ?? "the team's model"}`
              : "Extractive summary (no AI model configured): raters' own words"}
            {i.generatedAt ? ` · ${formatDateTime(i.generatedAt)}` : ""} · from {i.ratingCount} ratings
            {i.stale ? " · ratings changed since; regenerate for the latest" : ""}
          </p>
          <p>{i.summary}</p>
          {i.themes.length > 0 && (
            <>
              <h3>Recurring themes</h3>
              <ul aria-label="Themes">
                {i.themes.map((t) => (
                  <li key={t.label}>
                    <strong>{t.label}</strong> <span className="muted small">({t.mentions} mentions)</span>
                    <Quotes quotes={t.quotes} />
                  </li>
                ))}
              </ul>
            </>
          )}
          {i.comparisons.map((c) => (
            <div key={c.comparisonId}>
              <h3>{c.name ?? comparisonNames.get(c.comparisonId) ?? c.comparisonId}</h3>
              {c.strengths.length > 0 && <h4>Strengths</h4>}
              {c.strengths.map((p) => (
                <div key={p.text}>
                  <p>{p.text}</p>
                  <Quotes quotes={p.quotes} />
                </div>
              ))}
              {c.problems.length > 0 && <h4>Problems</h4>}
              {c.problems.map((p) => (
                <div key={p.text}>
                  <p>{p.text}</p>
                  <Quotes quotes={p.quotes} />
                </div>
              ))}
            </div>
          ))}
        </>
      )}
    </section>
  );
}
