import type { EvaluationResults } from "@rubricon/contracts";
import type { ReactNode } from "react";
import { plural } from "@/lib/format";
import {
  DistributionChart,
  fmt,
  IntervalLine,
  preferenceColor,
  SIDE_COLORS,
  scaleColor,
  signed,
  WinBar,
} from "./charts";
import { intervalText } from "./interval";

export type Dimension = EvaluationResults["dimensions"][number];
type SseDimension = Extract<Dimension, { kind: "sse" }>;
type SxsDimension = Extract<Dimension, { kind: "sxs" }>;

const WINNER_TEXT = { A: "A wins", B: "B wins", inconclusive: "Inconclusive" } as const;

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

export function SseCard({ d, labels }: { d: SseDimension; labels: string[] | null }) {
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
            ci={d.ci95}
            color="#2f4ad6"
            tickLabel={String}
            title={`Mean ${d.name}`}
          />
        </figure>
      </div>
    </section>
  );
}

export function SxsCard({ d }: { d: SxsDimension }) {
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
            ci={d.ci95}
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
