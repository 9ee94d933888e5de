import { type QuotaMetric, UNLIMITED, type Usage } from "@rubricon/contracts";

const METRICS: { metric: QuotaMetric; label: string }[] = [
  { metric: "evals_mo", label: "Evaluations" },
  { metric: "human_ratings_mo", label: "Human ratings" },
  { metric: "autouser_ratings_mo", label: "Autouser ratings" },
];

const count = (n: number) => n.toLocaleString("en");

/** One bar per monthly quota; an unlimited quota shows its count without a bar to fill. */
export function UsageMeters({ usage }: { usage: Usage }) {
  return (
    <div className="stack">
      <ul className="usage-meters">
        {METRICS.map(({ metric, label }) => {
          const limit = usage.limits[metric];
          const used = usage.used[metric];
          const unlimited = limit === UNLIMITED;
          const share = unlimited || limit === 0 ? (unlimited ? 0 : 1) : Math.min(1, used / limit);
          const full = !unlimited && used >= limit;
          return (
            <li key={metric} className="usage-meter">
              <div className="usage-meter-head">
                <span id={`usage-${metric}`}>{label}</span>
                <span className="muted" data-testid={`usage-${metric}`}>
                  {unlimited ? `${count(used)} used · unlimited` : `${count(used)} of ${count(limit)}`}
                </span>
              </div>
              <div
                className="usage-bar"
                role="progressbar"
                aria-labelledby={`usage-${metric}`}
                aria-valuemin={0}
                aria-valuemax={unlimited ? undefined : limit}
                aria-valuenow={used}
                aria-valuetext={unlimited ? `${used} used, unlimited` : `${used} of ${limit} used`}
              >
                <div
                  className={`usage-bar-fill${full ? " usage-bar-full" : ""}`}
                  style={{ width: `${Math.round(share * 100)}%` }}
                />
              </div>
            </li>
          );
        })}
      </ul>
      <p className="muted small" data-testid="usage-rpm">
        Requests per minute: <strong>{count(usage.limits.rpm)}</strong>, shared by all of the team's keys and
        sessions.
      </p>
    </div>
  );
}
