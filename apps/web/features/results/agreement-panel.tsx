"use client";

import {
  ALPHA_METRICS,
  type AlphaMetric,
  type AlphaStat,
  type EvaluationAgreement,
} from "@rubricon/contracts";
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { formatDateTime, plural } from "@/lib/format";
import { useTRPC } from "@/lib/trpc";
import { FormError } from "@/ui";
import { alphaLevel, levelText, RELIABLE, TENTATIVE } from "./agreement-level";
import { fmt } from "./charts";

const METRIC_LABELS: Record<AlphaMetric, string> = {
  nominal: "Nominal",
  ordinal: "Ordinal",
  interval: "Interval",
  ratio: "Ratio",
};

const METRIC_HINTS: Record<AlphaMetric, string> = {
  nominal: "Any two different scores disagree equally.",
  ordinal: "Disagreement grows with how many scale points lie between two scores.",
  interval: "Disagreement grows with the squared difference of two scores.",
  ratio: "Differences count relative to the size of the scores.",
};

type GroupKey = "all" | "humans" | "autousers" | "humansVsAutousers";
const GROUPS: { key: GroupKey; label: string }[] = [
  { key: "all", label: "All raters" },
  { key: "humans", label: "Humans" },
  { key: "autousers", label: "Autousers" },
  { key: "humansVsAutousers", label: "Humans vs autousers" },
];

function groupOf(data: EvaluationAgreement, key: GroupKey) {
  return key === "all" ? { overall: data.overall, dimensions: data.dimensions } : data.groups[key];
}

export function undefinedText(stat: AlphaStat): string {
  return stat.undefinedReason === "no_variation"
    ? "Not enough data: every score is the same, so there is no variation to agree on"
    : "Not enough data: no comparison has two ratings to compare yet";
}

/** Alpha per template as a dot with its interval, on a shared axis with the 0.667 and 0.8 reference lines. */
export function AgreementPanel({ id }: { id: string }) {
  const trpc = useTRPC();
  const [metric, setMetric] = useState<AlphaMetric | undefined>(undefined);
  const [group, setGroup] = useState<GroupKey>("all");
  const agreement = useQuery({
    ...trpc.results.agreement.queryOptions({ id, ...(metric ? { metric } : {}) }),
    // Switching the metric keeps the last plot on screen until the new one arrives, instead of a blank.
    placeholderData: keepPreviousData,
  });
  const data = agreement.data;
  const active = metric ?? data?.overall.metric;

  return (
    <section className="card" aria-labelledby="agreement-heading">
      <div className="agreement-head">
        <div>
          <h2 id="agreement-heading">Rater agreement</h2>
          <p className="muted small">
            Krippendorff’s α: 1 is perfect agreement, 0 is no better than chance. At least {RELIABLE} is
            reliable; {TENTATIVE} supports tentative conclusions.
          </p>
        </div>
        <fieldset className="segmented" aria-describedby="metric-hint">
          <legend className="visually-hidden">Distance metric</legend>
          {ALPHA_METRICS.map((m) => (
            <label key={m} className={active === m ? "segment segment-active" : "segment"}>
              <input
                type="radio"
                name="alpha-metric"
                value={m}
                checked={active === m}
                onChange={() => setMetric(m)}
                className="visually-hidden"
              />
              {METRIC_LABELS[m]}
            </label>
          ))}
        </fieldset>
      </div>
      {active && (
        <p className="muted small" id="metric-hint">
          {METRIC_LABELS[active]} metric: {METRIC_HINTS[active]}
          {metric === undefined && " (the default for this evaluation type)"}
        </p>
      )}

      {agreement.isPending && <p className="muted">Computing agreement…</p>}
      <FormError error={agreement.error} />
      {data && (
        <div className={agreement.isPlaceholderData ? "agreement-body is-updating" : "agreement-body"}>
          {/* biome-ignore lint/a11y/useSemanticElements: a group of toggle buttons, not a fieldset of form inputs */}
          <div className="group-tabs" role="group" aria-label="Rater group">
            {GROUPS.map((g) => {
              const stat = groupOf(data, g.key).overall;
              return (
                <button
                  key={g.key}
                  type="button"
                  className="group-tab"
                  aria-pressed={group === g.key}
                  onClick={() => setGroup(g.key)}
                >
                  <span className="group-tab-label">{g.label}</span>
                  <span className="group-tab-value">
                    {stat.alpha === null ? "—" : `α ${fmt(stat.alpha, 3)}`}
                  </span>
                  <span className="group-tab-meta">
                    {plural(stat.raters, "rater")} · {plural(stat.units, "unit")}
                  </span>
                </button>
              );
            })}
          </div>
          <ForestPlot
            rows={[
              { key: "overall", name: "All templates", stat: groupOf(data, group).overall, strong: true },
              ...groupOf(data, group).dimensions.map((d) => ({ key: d.templateId, name: d.name, stat: d })),
            ]}
          />
          <p className="muted small">
            {data.overall.metric} metric · 95% intervals from {data.bootstrap.samples} bootstrap samples ·
            computed {formatDateTime(data.computedAt)}
            {group === "humansVsAutousers" &&
              " · each unit pairs the humans’ median with the autousers’ median"}
          </p>
        </div>
      )}
    </section>
  );
}

interface ForestRow {
  key: string;
  name: string;
  stat: AlphaStat;
  strong?: boolean;
}

function ForestPlot({ rows }: { rows: ForestRow[] }) {
  // Alpha can fall below 0 (systematic disagreement); the axis only extends to -1 when something does.
  const lows = rows.flatMap((r) => [r.stat.alpha ?? 0, r.stat.ci95?.lower ?? 0]);
  const lo = Math.min(...lows) < 0 ? -1 : 0;
  const pos = (v: number) => `${((Math.max(lo, Math.min(1, v)) - lo) / (1 - lo)) * 100}%`;
  const ticks = lo < 0 ? [-1, -0.5, 0, 0.5, 1] : [0, 0.25, 0.5, 0.75, 1];

  return (
    <div className="forest">
      <div className="forest-axis forest-axis-top" aria-hidden="true">
        <span />
        <span className="forest-axis-track">
          <span className="forest-tick forest-tick-ref" style={{ left: pos(TENTATIVE) }}>
            {TENTATIVE}
          </span>
          <span className="forest-tick forest-tick-ref forest-tick-strong" style={{ left: pos(RELIABLE) }}>
            {RELIABLE}
          </span>
        </span>
        <span />
      </div>
      <ul className="forest-rows">
        {rows.map((r) => {
          const { alpha, ci95 } = r.stat;
          const level = alphaLevel(r.stat);
          const description =
            alpha === null
              ? `${r.name}: ${undefinedText(r.stat)}`
              : `${r.name}: α ${fmt(alpha, 3)}${ci95 ? `, 95% interval ${fmt(ci95.lower, 2)} to ${fmt(ci95.upper, 2)}` : ""}, ${levelText(r.stat)}`;
          return (
            <li
              key={r.key}
              className={r.strong ? "forest-row forest-strong" : "forest-row"}
              aria-label={description}
            >
              <span className="forest-label">{r.name}</span>
              <span className="forest-track" aria-hidden="true">
                <span className="forest-ref" style={{ left: pos(TENTATIVE) }} />
                <span className="forest-ref forest-ref-strong" style={{ left: pos(RELIABLE) }} />
                {lo < 0 && <span className="forest-zero" style={{ left: pos(0) }} />}
                {alpha === null ? (
                  <span className="forest-na">{undefinedText(r.stat)}</span>
                ) : (
                  <>
                    {ci95 && (
                      <span
                        className={`forest-whisker level-${level}`}
                        style={{
                          left: pos(ci95.lower),
                          width: `calc(${pos(ci95.upper)} - ${pos(ci95.lower)})`,
                        }}
                      />
                    )}
                    <span className={`forest-dot level-${level}`} style={{ left: pos(alpha) }} />
                  </>
                )}
              </span>
              <span className="forest-value">
                {alpha === null ? (
                  <span className="muted">—</span>
                ) : (
                  <>
                    <strong>{fmt(alpha, 3)}</strong>
                    <span className="muted small">
                      {ci95 ? ` [${fmt(ci95.lower, 2)}, ${fmt(ci95.upper, 2)}]` : " no interval"}
                    </span>
                  </>
                )}
              </span>
            </li>
          );
        })}
      </ul>
      <div className="forest-axis" aria-hidden="true">
        <span />
        <span className="forest-axis-track">
          {ticks.map((t) => (
            <span key={t} className="forest-tick" style={{ left: pos(t) }}>
              {t}
            </span>
          ))}
        </span>
        <span />
      </div>
    </div>
  );
}
