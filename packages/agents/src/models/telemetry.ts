/**
 * Whether model calls make OpenTelemetry spans (the AI SDK's, with the GenAI attributes: system, model, tokens),
 * and whether those carry prompt and reply text. The process that starts tracing turns it on; text only with
 * `OTEL_CAPTURE_CONTENT=true`.
 */
let state = { enabled: false, captureContent: false };

export function setModelTelemetry(next: { enabled: boolean; captureContent: boolean }): void {
  state = { ...next };
}

/** The `experimental_telemetry` setting of one AI SDK call; none while tracing is off. */
export function modelTelemetry(
  functionId: string,
): { isEnabled: true; functionId: string; recordInputs: boolean; recordOutputs: boolean } | undefined {
  if (!state.enabled) return undefined;
  return {
    isEnabled: true,
    functionId,
    recordInputs: state.captureContent,
    recordOutputs: state.captureContent,
  };
}
