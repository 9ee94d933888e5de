import type { EvaluationResults } from "@rubricon/contracts";
import type { ReactNode } from "react";
import { alphaLevel, levelText } from "./agreement-level";
import { undefinedText } from "./agreement-panel";
import { fmt } from "./charts";

/** The counts at the top of the results page, and the agreement between raters. */
export function ResultTiles({ r }: { r: EvaluationResults }) {
  const scored = r.ratingCount - r.excludedCount;
  return (
    <dl className="tiles">
      <Tile label="Ratings" value={r.ratingCount} testId="tile-ratings" sub={`${scored} scored`} />
      <Tile label="Humans" value={r.humanRatingCount} testId="tile-humans" sub="team and share link" />
      <Tile label="Autousers" value={r.autouserRatingCount} testId="tile-autousers" sub="automated raters" />
      <Tile label="Excluded" value={r.excludedCount} testId="tile-excluded" sub="skipped, not counted" />
      <AlphaTile stat={r.agreement} />
    </dl>
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
