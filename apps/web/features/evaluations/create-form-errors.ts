import { paramOf } from "@rubricon/contracts";
import type { z } from "zod";

export type FieldErrors = Record<string, string>;

/**
 * Errors are keyed by the field they belong to: `designUrls[2].url` shows under the URL list as "Line 3",
 * `comparisonPairs[0].variantUrl` under the first pair's B input.
 */
export function fieldOf(param: string | undefined): string {
  if (!param) return "form";
  if (param.startsWith("designUrls")) return "designUrls";
  const pair = /^comparisonPairs\[(\d+)\]\.(currentUrl|variantUrl|sideAFileId|sideBFileId)/.exec(param);
  if (pair) return `pair-${pair[1]}-${pair[2] === "currentUrl" || pair[2] === "sideAFileId" ? "a" : "b"}`;
  if (param.startsWith("comparisonPairs")) return "comparisonPairs";
  if (param.startsWith("selectedAutousers")) return "selectedAutousers";
  return [
    "name",
    "description",
    "type",
    "shareAccess",
    "sharePassword",
    "ratingDeadline",
    "targetRatingsPerComparison",
  ].includes(param)
    ? param
    : "form";
}

export function describeIssue(param: string | undefined, message: string): string {
  const line = param && /^designUrls\[(\d+)\]/.exec(param);
  if (line) return `Line ${Number(line[1]) + 1}: enter a full URL, starting with https://.`;
  if (param?.startsWith("comparisonPairs[")) return "Enter a full URL, starting with https://.";
  return message;
}

export function issuesToErrors(issues: z.core.$ZodIssue[]): FieldErrors {
  const errors: FieldErrors = {};
  for (const issue of issues) {
    const param = paramOf(issue.path);
    const key = fieldOf(param);
    errors[key] ??= describeIssue(param, issue.message);
  }
  return errors;
}
