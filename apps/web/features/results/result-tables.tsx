import type { Comparison, EvaluationResults } from "@rubricon/contracts";
import { useQuery } from "@tanstack/react-query";
import { useTRPC } from "@/lib/trpc";
import { type Column, DataTable } from "@/ui";
import { fmt, MeanMeter, signed } from "./charts";
import type { Dimension } from "./dimension-cards";

type ComparisonRow = EvaluationResults["perComparison"][number];
type RaterRow = EvaluationResults["perRater"][number];

const RATER_TYPE_LABELS = { user: "Team member", public: "Share link", autouser: "Autouser" } as const;

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

function comparisonLabel(row: ComparisonRow, comparison: Comparison | undefined) {
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

/**
 * What the by-rater table calls each rater. Autousers rate under their id; the table names them as the runs table
 * does.
 */
export function useRaterName(id: string, teamId: string): (row: RaterRow) => string {
  const trpc = useTRPC();
  const publicRaters = useQuery(trpc.ratings.publicRaters.queryOptions({ id, limit: 100 }));
  const whoami = useQuery(trpc.auth.whoami.queryOptions({}));
  const members = useQuery({
    ...trpc.teams.members.list.queryOptions({ id: teamId, limit: 100 }),
    enabled: Boolean(teamId),
  });
  const autousers = useQuery({
    ...trpc.autousers.list.queryOptions({ limit: 100, teamId }),
    enabled: Boolean(teamId),
  });
  return (row) => {
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
}

type MeanColumn = Column<{ dimensions: Record<string, MeanFigure | undefined> }>;

/** One column per dimension, shared by the per-comparison and per-rater tables. */
export function meanColumnsOf(dimensions: Dimension[]): MeanColumn[] {
  return dimensions.map((d) => ({
    header: `${d.name} ${d.kind === "sse" ? "mean" : "preference"}`,
    className: "nowrap",
    cell: (row) => <MeanValue d={d} cell={row.dimensions[d.templateId]} />,
  }));
}

export function ComparisonTable({
  rows,
  comparisonById,
  meanColumns,
}: {
  rows: ComparisonRow[];
  comparisonById: Map<string, Comparison>;
  meanColumns: MeanColumn[];
}) {
  return (
    <section className="card" aria-labelledby="per-comparison-heading">
      <h2 id="per-comparison-heading">By comparison</h2>
      <DataTable
        bare
        rows={[...rows].sort((a, b) => a.position - b.position)}
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
  );
}

export function RaterTable({
  rows,
  raterName,
  meanColumns,
}: {
  rows: RaterRow[];
  raterName: (row: RaterRow) => string;
  meanColumns: MeanColumn[];
}) {
  return (
    <section className="card" aria-labelledby="per-rater-heading">
      <h2 id="per-rater-heading">By rater</h2>
      <DataTable
        bare
        rows={rows}
        rowKey={(row) => `${row.raterType}:${row.raterId}`}
        columns={[
          { header: "Rater", className: "cell-name", cell: raterName },
          ...meanColumns,
          {
            header: "Type",
            cell: (row) => (
              <span className={`rater-chip rater-${row.raterType}`}>{RATER_TYPE_LABELS[row.raterType]}</span>
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
