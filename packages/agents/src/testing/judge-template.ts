import type { JudgeTemplate } from "../types";

/** A rating template as the judges receive it: the built-in `builtIn`, on a 1-7 scale, unless `overrides` say else. */
export function judgeTemplate(builtIn: string, overrides: Partial<JudgeTemplate> = {}): JudgeTemplate {
  return {
    id: `tpl_${builtIn}`,
    name: builtIn,
    description: "",
    question: "",
    guidelines: "",
    scaleMin: 1,
    scaleMax: 7,
    scaleLabels: {},
    sourceBuiltInId: builtIn,
    ...overrides,
  };
}
