"use client";

import type { Comparison, EvaluationResults } from "@rubricon/contracts";
import { useQueries, useQuery } from "@tanstack/react-query";
import Link from "next/link";
import type { ReactNode } from "react";
import { HumansVsAutousers } from "@/features/autouser-runs/humans-vs-autousers";
import { StatusBadge } from "@/features/evaluations/status-badge";
import { formatDateTime, plural } from "@/lib/format";
import { useTRPC } from "@/lib/trpc";
import { type Column, DataTable, FormError, Loading, PageHeader } from "@/ui";
import { alphaLevel, levelText } from "./agreement-level";
import { AgreementPanel, undefinedText } from "./agreement-panel";
import { AiInsightsPanel } from "./ai-insights-panel";
import {
  DistributionChart,
  fmt,
  IntervalLine,
  MeanMeter,
  preferenceColor,
  SIDE_COLORS,
  scaleColor,
  signed,
  WinBar,
} from "./charts";
import { intervalOnScale, intervalText } from "./interval";

type Dimension = EvaluationResults["dimensions"][number];
type SseDimension = Extract<Dimension, { kind: "sse" }>;
type SxsDimension = Extract<Dimension, { kind: "sxs" }>;

const RATER_TYPE_LABELS = { user: "Team member", public: "Share link", autouser: "Autouser" } as const;
const WINNER_TEXT = { A: "A wins", B: "B wins", inconclusive: "Inconclusive" } as const;

/** "example.com/checkout" for a comparison without a name: what a reader recognises in a table. */
function shortUrl(url: string | null | undefined): string | null {
  if (!url) return null;
  try {
    const u = new URL(url);
    return `${u.host}${u.pathname === "/" ? "" : u.pathname}`;
  } catch {
    return url;
  }
}

function comparisonLabel(
  row: EvaluationResults["perComparison"][number],
  comparison: Comparison | undefined,
) {
  if (row.name) return row.name;
  const s = comparison?.stimulus;
  if (s?.kind === "single") return shortUrl(s.url) ?? `Design ${row.position + 1}`;
  if (s?.kind === "pair") {
    const a = shortUrl(s.sideA.url);
    const b = shortUrl(s.sideB.url);
    if (a && b) return `${a} vs ${b}`;
  }
  return `Comparison ${row.position + 1}`;
}

export function EvaluationResultsView({ id }: { id: string }) {
  const trpc = useTRPC();
  const evaluation = useQuery(trpc.evaluations.get.queryOptions({ id }));
  const results = useQuery(trpc.results.results.queryOptions({ id }));
  const comparisons = useQuery(trpc.evaluations.comparisons.list.queryOptions({ id, limit: 100 }));
  const publicRaters = useQuery(trpc.ratings.publicRaters.queryOptions({ id, limit: 100 }));
  const whoami = useQuery(trpc.auth.whoami.queryOptions({}));
  const teamId = evaluation.data?.teamId ?? "";
  const members = useQuery({
    ...trpc.teams.members.list.queryOptions({ id: teamId, limit: 100 }),
    enabled: Boolean(teamId),
  });
  // Autousers rate under their id; the by-rater table names them as the runs table does.
  const autousers = useQuery({
    ...trpc.autousers.list.queryOptions({ limit: 100, teamId }),
    enabled: Boolean(teamId),
  });
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
  const scored = r.ratingCount - r.excludedCount;

  const comparisonById = new Map((comparisons.data?.data ?? []).map((c) => [c.id, c]));
  const raterName = (row: EvaluationResults["perRater"][number]): string => {
    if (row.raterType === "user") {
      const m = members.data?.data.find((x) => x.userId === row.raterId);
      const who = m ? m.name || m.email : (row.raterId ?? "Team member");
      return row.raterId && row.raterId === whoami.data?.userId ? `${who} (you)` : who;
    }
    if (row.raterType === "public") {
      const p = publicRaters.data?.data.find((x) => x.id === row.raterId);
      // Unnamed raters stay apart by the end of their id, so two of them are not read as one person.
      return p?.name || p?.email || `Anonymous rater ${(row.raterId ?? "").slice(-4)}`.trim();
    }
    const autouser = autousers.data?.data.find((a) => a.id === row.raterId);
    return autouser?.name ?? row.raterId ?? "Autouser";
  };
  // One column per dimension, shared by the per-comparison and per-rater tables.
  const meanColumns: Column<{ dimensions: Record<string, MeanFigure | undefined> }>[] = r.dimensions.map(
    (d) => ({
      header: `${d.name} ${d.kind === "sse" ? "mean" : "preference"}`,
      className: "nowrap",
      cell: (row) => <MeanValue d={d} cell={row.dimensions[d.templateId]} />,
    }),
  );

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

      <dl className="tiles">
        <Tile label="Ratings" value={r.ratingCount} testId="tile-ratings" sub={`${scored} scored`} />
        <Tile label="Humans" value={r.humanRatingCount} testId="tile-humans" sub="team and share link" />
        <Tile
          label="Autousers"
          value={r.autouserRatingCount}
          testId="tile-autousers"
          sub="automated raters"
        />
        <Tile label="Excluded" value={r.excludedCount} testId="tile-excluded" sub="skipped, not counted" />
        <AlphaTile stat={r.agreement} />
      </dl>

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

          <section className="card" aria-labelledby="per-comparison-heading">
            <h2 id="per-comparison-heading">By comparison</h2>
            <DataTable
              bare
              rows={[...r.perComparison].sort((a, b) => a.position - b.position)}
              rowKey={(row) => row.comparisonId}
              columns={[
                { header: "#", numeric: true, className: "muted", cell: (row) => row.position + 1 },
                {
                  header: "Comparison",
                  className: "cell-name",
                  cell: (row) => comparisonLabel(row, comparisonById.get(row.comparisonId)),
                },
                // The means first: on a phone they are what fits beside the name.
                ...meanColumns,
                { header: "Ratings", numeric: true, cell: (row) => row.ratingCount },
                {
                  header: "Skipped",
                  numeric: true,
                  cell: (row) => row.excludedCount || <span className="muted">0</span>,
                },
              ]}
            />
          </section>

          <section className="card" aria-labelledby="per-rater-heading">
            <h2 id="per-rater-heading">By rater</h2>
            <DataTable
              bare
              rows={r.perRater}
              rowKey={(row) => `${row.raterType}:${row.raterId}`}
              columns={[
                { header: "Rater", className: "cell-name", cell: raterName },
                ...meanColumns,
                {
                  header: "Type",
                  cell: (row) => (
                    <span className={`rater-chip rater-${row.raterType}`}>
                      {RATER_TYPE_LABELS[row.raterType]}
                    </span>
                  ),
                },
                { header: "Ratings", numeric: true, cell: (row) => row.ratingCount },
                {
                  header: "Skipped",
                  numeric: true,
                  cell: (row) => row.excludedCount || <span className="muted">0</span>,
                },
              ]}
            />
          </section>
        </>
      )}
    </>
  );
}

function Tile({
  label,
  value,
  sub,
  testId,
}: {
  label: string;
  value: ReactNode;
  sub?: string;
  testId: string;
}) {
  return (
    <div className="tile">
      <dt>{label}</dt>
      <dd className="tile-value" data-testid={testId}>
        {value}
      </dd>
      {sub && <dd className="tile-sub">{sub}</dd>}
    </div>
  );
}

function AlphaTile({ stat }: { stat: EvaluationResults["agreement"] }) {
  const level = alphaLevel(stat);
  return (
    <div className={`tile tile-alpha${level ? ` level-${level}` : ""}`}>
      <dt>Agreement (α)</dt>
      <dd className="tile-value" data-testid="tile-alpha">
        {stat.alpha === null ? "—" : fmt(stat.alpha, 3)}
      </dd>
      <dd className="tile-sub" data-testid="tile-alpha-level" data-level={level ?? undefined}>
        {stat.alpha === null
          ? undefinedText(stat)
          : `${stat.ci95 ? `95% CI ${fmt(stat.ci95.lower, 2)} to ${fmt(stat.ci95.upper, 2)} · ` : ""}${levelText(stat)}`}
      </dd>
    </div>
  );
}

function CardHead({ d, badge }: { d: Dimension; badge?: ReactNode }) {
  return (
    <div className="result-head">
      <div>
        <h2 id={`dim-${d.templateId}`}>{d.name}</h2>
        <p className="muted small">
          Template version {d.version} · {plural(d.n, "score")}
        </p>
      </div>
      {badge}
    </div>
  );
}

function SseCard({ d, labels }: { d: SseDimension; labels: string[] | null }) {
  const bars = Object.entries(d.distribution)
    .map(([k, count]) => ({ value: Number(k), count }))
    .sort((a, b) => a.value - b.value)
    .map(({ value, count }) => ({
      value,
      tick: String(value),
      label: labels?.[value - d.scaleMin] || null,
      count,
      color: scaleColor(value, d.scaleMin, d.scaleMax),
    }));
  return (
    <section
      className="card result-card"
      aria-labelledby={`dim-${d.templateId}`}
      data-testid={`result-${d.templateId}`}
    >
      <CardHead d={d} />
      <div className="result-grid">
        <figure className="figure">
          <figcaption>Distribution</figcaption>
          <DistributionChart bars={bars} title={`Distribution of ${d.name} scores`} />
        </figure>
        <figure className="figure">
          <figcaption>Mean with 95% interval</figcaption>
          <div className="big-stat">
            <span className="big-number" data-testid="mean">
              {d.mean === null ? "—" : fmt(d.mean)}
            </span>
            <span className="muted">
              {" "}
              of {d.scaleMin}–{d.scaleMax}
            </span>
          </div>
          <p className="muted small">
            {d.ci95
              ? intervalText(d.ci95, { min: d.scaleMin, max: d.scaleMax }, d.n, (v) => fmt(v))
              : "Interval needs two or more scores"}
            {d.stdDev !== null && ` · SD ${fmt(d.stdDev)}`}
          </p>
          <IntervalLine
            min={d.scaleMin}
            max={d.scaleMax}
            mean={d.mean}
            ci={d.ci95 && intervalOnScale(d.ci95, d.scaleMin, d.scaleMax)}
            color="#2f4ad6"
            tickLabel={String}
            title={`Mean ${d.name}`}
          />
        </figure>
      </div>
    </section>
  );
}

function SxsCard({ d }: { d: SxsDimension }) {
  const bars = [-3, -2, -1, 0, 1, 2, 3].map((value) => ({
    value,
    tick: value > 0 ? `+${value}` : String(value),
    label: value === -3 ? "A much better" : value === 3 ? "B much better" : value === 0 ? "Same" : null,
    count: d.distribution[String(value)] ?? 0,
    color: preferenceColor(value),
  }));
  const color = d.winner === "A" ? SIDE_COLORS.A : d.winner === "B" ? SIDE_COLORS.B : "#5f6876";
  return (
    <section
      className="card result-card"
      aria-labelledby={`dim-${d.templateId}`}
      data-testid={`result-${d.templateId}`}
    >
      <CardHead
        d={d}
        badge={
          <span className={`winner winner-${d.winner.toLowerCase()}`} data-testid="winner">
            {WINNER_TEXT[d.winner]}
          </span>
        }
      />
      <WinBar a={d.sideAWins} ties={d.ties} b={d.sideBWins} />
      <div className="result-grid">
        <figure className="figure">
          <figcaption>Preference distribution</figcaption>
          <DistributionChart bars={bars} title={`Distribution of ${d.name} preferences`} />
        </figure>
        <figure className="figure">
          <figcaption>Mean preference with 95% interval</figcaption>
          <div className="big-stat">
            <span className="big-number" data-testid="mean">
              {d.meanPreference === null ? "—" : signed(d.meanPreference)}
            </span>
            <span className="muted">
              {" "}
              {d.meanPreference === null || d.meanPreference === 0
                ? ""
                : `towards ${d.meanPreference < 0 ? "A" : "B"}`}
            </span>
          </div>
          <p className="muted small">
            {d.ci95
              ? `${intervalText(d.ci95, { min: -3, max: 3 }, d.n, signed, (v) => (v > 0 ? `+${v}` : String(v)))}${d.winner === "inconclusive" ? " · includes 0" : ""}`
              : "Interval needs two or more preferences"}
          </p>
          <IntervalLine
            min={-3}
            max={3}
            mean={d.meanPreference}
            ci={d.ci95 && intervalOnScale(d.ci95, -3, 3)}
            color={color}
            tickLabel={(v) => (v > 0 ? `+${v}` : String(v))}
            ends={["← A better", "B better →"]}
            valueLabel={(v) => signed(v)}
            zeroLine
            title={`Mean ${d.name} preference`}
          />
        </figure>
      </div>
    </section>
  );
}

interface MeanFigure {
  n: number;
  mean: number | null;
}

function MeanValue({ d, cell }: { d: Dimension; cell: MeanFigure | undefined }) {
  if (!cell || cell.mean === null) return <span className="muted">—</span>;
  const sse = d.kind === "sse";
  return (
    <span className="mean-cell">
      <span className="mean-value">{sse ? fmt(cell.mean) : signed(cell.mean)}</span>
      <MeanMeter mean={cell.mean} min={sse ? d.scaleMin : -3} max={sse ? d.scaleMax : 3} diverging={!sse} />
      <span className="muted small">n {cell.n}</span>
    </span>
  );
}
