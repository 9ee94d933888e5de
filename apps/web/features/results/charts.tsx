/**
 * Small hand-drawn charts for the results page. SVGs use a fixed viewBox and scale uniformly with their card;
 * the agreement rows are HTML positioned in percent so every row shares one axis at any width.
 */

export const fmt = (n: number, digits = 2) => n.toFixed(digits).replace(/^-(0\.0+)$/, "$1");
export const signed = (n: number, digits = 2) => (n > 0 ? `+${fmt(n, digits)}` : fmt(n, digits));

/** Side A, about the same, side B: the same three colours everywhere a preference is drawn. */
export const SIDE_COLORS = { A: "#d97706", tie: "#b8bec9", B: "#2f4ad6" } as const;

/** Low to high scale points in shades of the primary colour; the top of the scale is the darkest. */
export function scaleColor(value: number, min: number, max: number): string {
  const t = max > min ? (value - min) / (max - min) : 1;
  const lightness = 82 - t * 42;
  return `hsl(230 66% ${lightness}%)`;
}

/** A preference point's colour: sides get stronger towards ±3, 0 stays neutral. */
export function preferenceColor(value: number): string {
  if (value === 0) return SIDE_COLORS.tie;
  const strength = Math.abs(value) / 3;
  return value < 0 ? `hsl(35 92% ${72 - strength * 28}%)` : `hsl(230 66% ${78 - strength * 34}%)`;
}

export interface Bar {
  value: number;
  tick: string;
  label: string | null;
  count: number;
  color: string;
}

function truncate(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** Count per scale point as vertical bars, the count on top and the point (and its label) underneath. */
export function DistributionChart({ bars, title }: { bars: Bar[]; title: string }) {
  const W = 480;
  const H = 196;
  const top = 24;
  const bottom = bars.some((b) => b.label) ? 44 : 28;
  const innerH = H - top - bottom;
  const band = W / bars.length;
  const barWidth = Math.min(band * 0.62, 54);
  const max = Math.max(1, ...bars.map((b) => b.count));
  const total = bars.reduce((s, b) => s + b.count, 0);
  const summary = bars.map((b) => `${b.tick}: ${b.count}`).join(", ");
  return (
    <svg viewBox={`0 0 ${W} ${H}`} className="chart" role="img" aria-label={`${title}. ${summary}`}>
      <line x1={0} x2={W} y1={top + innerH + 0.5} y2={top + innerH + 0.5} className="chart-baseline" />
      {bars.map((b, i) => {
        const cx = band * i + band / 2;
        const h = (innerH * b.count) / max;
        const y = top + innerH - h;
        const share = total ? Math.round((b.count / total) * 100) : 0;
        return (
          <g key={b.value} data-testid={`bar-${b.value}`} data-count={b.count}>
            <title>{`${b.tick}${b.label ? ` (${b.label})` : ""}: ${b.count} (${share}%)`}</title>
            <rect
              x={cx - barWidth / 2}
              y={top + innerH - innerH}
              width={barWidth}
              height={innerH}
              rx={4}
              className="chart-slot"
            />
            {b.count > 0 && (
              <rect x={cx - barWidth / 2} y={y} width={barWidth} height={h} rx={4} fill={b.color} />
            )}
            <text
              x={cx}
              y={y - 7}
              textAnchor="middle"
              className={b.count ? "chart-count" : "chart-count chart-zero"}
            >
              {b.count}
            </text>
            <text x={cx} y={top + innerH + 17} textAnchor="middle" className="chart-tick">
              {b.tick}
            </text>
            {b.label && (
              <text x={cx} y={top + innerH + 33} textAnchor="middle" className="chart-label">
                {truncate(b.label, band > 64 ? 14 : 9)}
              </text>
            )}
          </g>
        );
      })}
    </svg>
  );
}

interface IntervalLineProps {
  min: number;
  max: number;
  mean: number | null;
  ci: { lower: number; upper: number } | null;
  color: string;
  tickLabel: (v: number) => string;
  ends?: [string, string];
  zeroLine?: boolean;
  title: string;
  valueLabel?: (v: number) => string;
}

/** A scale from min to max with the mean as a dot and its 95% interval as a band around it. */
export function IntervalLine({
  min,
  max,
  mean,
  ci,
  color,
  tickLabel,
  ends,
  zeroLine,
  title,
  valueLabel = (v) => fmt(v),
}: IntervalLineProps) {
  const W = 480;
  const H = ends ? 84 : 70;
  const pad = 16;
  const axisY = 38;
  const x = (v: number) => pad + ((Math.min(max, Math.max(min, v)) - min) / (max - min)) * (W - 2 * pad);
  const ticks: number[] = [];
  for (let v = min; v <= max; v++) ticks.push(v);
  const label =
    mean === null
      ? `${title}: no scores yet`
      : `${title}: ${valueLabel(mean)}${ci ? `, 95% interval ${valueLabel(ci.lower)} to ${valueLabel(ci.upper)}` : ""}`;
  return (
    <svg viewBox={`0 0 ${W} ${H}`} className="chart" role="img" aria-label={label}>
      <line x1={pad} x2={W - pad} y1={axisY} y2={axisY} className="chart-axis" />
      {ticks.map((t) => (
        <g key={t}>
          <line
            x1={x(t)}
            x2={x(t)}
            y1={axisY - (zeroLine && t === 0 ? 14 : 4)}
            y2={axisY + 4}
            className={zeroLine && t === 0 ? "chart-axis chart-zero-line" : "chart-axis"}
          />
          <text x={x(t)} y={axisY + 20} textAnchor="middle" className="chart-tick">
            {tickLabel(t)}
          </text>
        </g>
      ))}
      {ends && (
        <>
          <text x={pad} y={H - 4} textAnchor="start" className="chart-label">
            {ends[0]}
          </text>
          <text x={W - pad} y={H - 4} textAnchor="end" className="chart-label">
            {ends[1]}
          </text>
        </>
      )}
      {ci && mean !== null && (
        <rect
          x={x(ci.lower)}
          y={axisY - 6}
          width={Math.max(2, x(ci.upper) - x(ci.lower))}
          height={12}
          rx={6}
          fill={color}
          opacity={0.22}
        />
      )}
      {mean !== null && (
        <>
          <circle cx={x(mean)} cy={axisY} r={7} fill={color} stroke="#fff" strokeWidth={2.5} />
          <text x={x(mean)} y={axisY - 14} textAnchor="middle" className="chart-value">
            {valueLabel(mean)}
          </text>
        </>
      )}
    </svg>
  );
}

/** A stacked bar: how often A won, how often the two were about the same, how often B won. */
export function WinBar({ a, ties, b }: { a: number; ties: number; b: number }) {
  const total = a + ties + b;
  const pct = (n: number) => (total ? (n / total) * 100 : 0);
  const parts = [
    { key: "A", label: "A wins", n: a, color: SIDE_COLORS.A },
    { key: "tie", label: "Ties", n: ties, color: SIDE_COLORS.tie },
    { key: "B", label: "B wins", n: b, color: SIDE_COLORS.B },
  ];
  return (
    <div className="winbar">
      <div
        className="winbar-track"
        role="img"
        aria-label={`A wins ${a}, ties ${ties}, B wins ${b}`}
        data-testid="win-bar"
      >
        {total === 0 && <span className="winbar-empty">No preferences yet</span>}
        {parts.map((p) =>
          p.n > 0 ? (
            <span
              key={p.key}
              className="winbar-part"
              style={{ width: `${pct(p.n)}%`, background: p.color }}
              title={`${p.label}: ${p.n}`}
            >
              {pct(p.n) >= 12 ? `${Math.round(pct(p.n))}%` : ""}
            </span>
          ) : null,
        )}
      </div>
      <ul className="legend">
        {parts.map((p) => (
          <li key={p.key}>
            <span className="legend-swatch" style={{ background: p.color }} aria-hidden="true" />
            {p.label} <strong>{p.n}</strong>
            <span className="muted"> · {Math.round(pct(p.n))}%</span>
          </li>
        ))}
      </ul>
    </div>
  );
}

/** A small inline meter of a mean within its scale, for table cells; SxS means grow from the centre. */
export function MeanMeter({
  mean,
  min,
  max,
  diverging,
}: {
  mean: number;
  min: number;
  max: number;
  diverging?: boolean;
}) {
  if (diverging) {
    const half = (Math.min(Math.abs(mean), max) / max) * 50;
    return (
      <span className="meter meter-diverging" aria-hidden="true">
        <span className="meter-center" />
        <span
          className="meter-fill"
          style={{
            left: mean < 0 ? `${50 - half}%` : "50%",
            width: `${half}%`,
            background: mean < 0 ? SIDE_COLORS.A : SIDE_COLORS.B,
          }}
        />
      </span>
    );
  }
  const t = (mean - min) / (max - min);
  return (
    <span className="meter" aria-hidden="true">
      <span className="meter-fill" style={{ width: `${Math.max(0, Math.min(1, t)) * 100}%` }} />
    </span>
  );
}
