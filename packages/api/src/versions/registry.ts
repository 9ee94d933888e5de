import { API_VERSIONS, type ApiVersion, FIRST_API_VERSION } from "@rubricon/contracts";

type Json = Record<string, unknown>;

/**
 * One breaking change, introduced by `version`: how to bring a request written for the version before up to it,
 * and how to take a response in its shape back to the version before. Core always works in the newest shape;
 * these transforms are the only place older shapes exist.
 */
export interface VersionChange {
  /** The version that introduced the change. */
  version: ApiVersion;
  /** The changelog line (docs/api-versions.md, the OpenAPI document's `info`). */
  summary: string;
  /** The resources (`object` values) the change touches, wherever they appear: bodies, lists, event payloads. */
  objects: readonly string[];
  /** A request body or query written for the version before, as this version expects it. */
  request?: (input: Json, route: string) => Json;
  /** One such resource in this version's shape, as the version before showed it. */
  response: (object: Json) => Json;
}

/** Every change, oldest first. A new version is its date in `API_VERSIONS` plus its changes here. */
export const VERSION_CHANGES: readonly VersionChange[] = [
  {
    version: "2026-11-25",
    summary:
      "Evaluations answer `ratingWindow: { closesAt, targetRatingsPerComparison }` in place of the top-level " +
      "`ratingDeadline` and `targetRatingsPerComparison`: the two conditions close one window, whichever comes " +
      "first. Request bodies keep the top-level `ratingDeadline` and `targetRatingsPerComparison`.",
    objects: ["evaluation"],
    response: (evaluation) => {
      // An event stored before the change already has the old shape.
      if (!("ratingWindow" in evaluation)) return evaluation;
      const { ratingWindow, ...rest } = evaluation;
      const window = (ratingWindow ?? {}) as { closesAt?: unknown; targetRatingsPerComparison?: unknown };
      const out: Json = {};
      // The old shape's key order, so an old client's snapshot of a body stays byte-identical.
      for (const [key, value] of Object.entries(rest)) {
        if (key === "collectRaterName") {
          out.ratingDeadline = window.closesAt ?? null;
          out.targetRatingsPerComparison = window.targetRatingsPerComparison ?? null;
        }
        out[key] = value;
      }
      return out;
    },
  },
];

for (const change of VERSION_CHANGES) {
  if (change.version === FIRST_API_VERSION || !API_VERSIONS.includes(change.version))
    throw new Error(`version change for ${change.version}, which is not a later API version`);
}

/** The changes between `version` and the newest, newest first: the order responses are taken back in. */
export function changesAfter(version: ApiVersion): VersionChange[] {
  return VERSION_CHANGES.filter((c) => c.version > version).reverse();
}
