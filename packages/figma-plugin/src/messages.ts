import type { Choice, CreatedEvaluation, EvaluationKind, Progress, SignedIn } from "@rubricon/client-kit";

/** What the plugin window asks of the plugin. */
export type UiRequest =
  | { type: "ready" }
  | { type: "pair" }
  | { type: "cancel-pair" }
  | { type: "sign-out" }
  | { type: "load-options"; kind: EvaluationKind }
  | {
      type: "evaluate";
      kind: EvaluationKind;
      name: string;
      templateId: string;
      autouserIds: string[];
      status: "Draft" | "Running";
    }
  | { type: "open"; url: string };

export interface FrameInfo {
  id: string;
  name: string;
}

/** What the plugin tells its window. */
export type PluginEvent =
  | { type: "signed-out"; server: string; reason?: string }
  | { type: "pairing"; code: string; verificationUrl: string; expiresAt: string }
  | { type: "signed-in"; server: string; user: SignedIn }
  | { type: "selection"; frames: FrameInfo[] }
  | { type: "options"; kind: EvaluationKind; templates: Choice[]; autousers: Choice[] }
  | { type: "busy"; message: string }
  | { type: "created"; evaluation: CreatedEvaluation }
  | { type: "progress"; evaluationId: string; progress: Progress }
  | { type: "error"; message: string };
