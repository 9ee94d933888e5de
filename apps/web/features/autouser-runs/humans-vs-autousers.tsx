"use client";

import type { AlphaStat, EvaluationResults } from "@rubricon/contracts";
import { useQuery } from "@tanstack/react-query";
import { undefinedText } from "@/features/results/agreement-panel";
import { useTRPC } from "@/lib/trpc";
import { DataTable } from "@/ui";

interface Side {
  n: number;
  mean: number | null;
}

/** The n-weighted mean of one dimension over the raters of one kind. */
function pooled(rows: EvaluationResults["perRater"], templateId: string): Side {
  let n = 0;
  let sum = 0;
  for (const row of rows) {
    const cell = row.dimensions[templateId];
    if (!cell || cell.mean === null || cell.n === 0) continue;
    n += cell.n;
    sum += cell.mean * cell.n;
  }
  return { n, mean: n === 0 ? null : sum / n };
}

const fmt = (v: number | null) => (v === null ? "—" : v.toFixed(2));

function alphaText(stat: AlphaStat | undefined): string {
  if (!stat) return "—";
  return stat.alpha === null ? undefinedText(stat) : `α ${stat.alpha.toFixed(2)}`;
}

/**
 * Human and autouser ratings side by side per dimension, with their agreement: alpha between the humans'
 * median and the autousers' median of each comparison (the agreement route's `humansVsAutousers` group).
 */
export function HumansVsAutousers({ id, results }: { id: string; results: EvaluationResults }) {
  const trpc = useTRPC();
  const agreement = useQuery(trpc.results.agreement.queryOptions({ id }));
  if (results.autouserRatingCount === 0) return null;
  const humans = results.perRater.filter((r) => r.raterType !== "autouser");
  const autousers = results.perRater.filter((r) => r.raterType === "autouser");
  const vs = agreement.data?.groups.humansVsAutousers;
  const rows = results.dimensions.map((d) => ({
    templateId: d.templateId,
    name: d.name,
    humans: pooled(humans, d.templateId),
    autousers: pooled(autousers, d.templateId),
    stat: vs?.dimensions.find((x) => x.templateId === d.templateId),
  }));

  return (
    <section className="card" aria-labelledby="humans-vs-autousers-heading">
      <h2 id="humans-vs-autousers-heading">Humans and autousers</h2>
      <p className="muted small">
        Mean score per dimension ({results.type === "SxS" ? "preference, −3 A to +3 B" : "on its scale"}) and
        how well the two kinds of rater agree.
      </p>
      <DataTable
        bare
        label="Humans and autousers"
        rows={rows}
        rowKey={(row) => row.templateId}
        rowProps={() => ({ "data-testid": "humans-vs-autousers-row" })}
        columns={[
          { header: "Dimension", rowHeader: true, cell: (row) => row.name },
          {
            header: "Humans",
            numeric: true,
            testId: "human-mean",
            cell: (row) => (
              <>
                {fmt(row.humans.mean)} <span className="muted small">n={row.humans.n}</span>
              </>
            ),
          },
          {
            header: "Autousers",
            numeric: true,
            testId: "autouser-mean",
            cell: (row) => (
              <>
                {fmt(row.autousers.mean)} <span className="muted small">n={row.autousers.n}</span>
              </>
            ),
          },
          {
            header: "Agreement",
            className: "small cell-note",
            cell: (row) => (agreement.isPending ? "…" : alphaText(row.stat)),
          },
        ]}
      />
      {vs && <p className="small table-note">Overall: {alphaText(vs.overall)}</p>}
    </section>
  );
}
