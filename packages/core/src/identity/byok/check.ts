import { type ModelConfig, type ProviderFailure, probeModel, testModel } from "@rubricon/agents";
import type { ByokCheckInput, ByokProbeResult, ByokTestResult } from "@rubricon/contracts";
import type { Actor, CoreContext } from "../../kernel";
import { ApiError, decryptSecret } from "../../kernel";
import { requireRole, resolveTargetTeam } from "../teams/access";
import { checkProviderBaseUrl } from "./base-url";
import type { ByokOptions } from "./settings";
import { readByokRow } from "./settings";

export interface ByokCheckOptions extends ByokOptions {
  /** Per provider call. */
  timeoutMs?: number;
}

type KeySource = ByokTestResult["keySource"];

/**
 * The model to try: the stored settings with the request's fields laid over them. The stored key goes only to
 * the stored provider at the stored address, so a test can never send it somewhere the caller chose.
 */
async function configToCheck(
  ctx: CoreContext,
  actor: Actor,
  input: ByokCheckInput,
  opts: ByokCheckOptions,
): Promise<{ config: ModelConfig; keySource: KeySource }> {
  const membership = await resolveTargetTeam(ctx.db, actor, input.teamId);
  requireRole(membership, ["owner", "admin"], "test the team's model keys");
  const stored = await readByokRow(ctx.db, membership.team.id);
  const provider = input.provider ?? stored?.provider;
  if (!provider) {
    throw new ApiError(
      "parameter_missing",
      "This team has no model settings yet: send `provider`, `model` and `apiKey` to try one.",
      { param: "provider" },
    );
  }
  const model = input.model ?? (stored?.provider === provider ? stored.model : undefined);
  if (!model) throw new ApiError("parameter_missing", "Send `model`, the model to try.", { param: "model" });
  const rawBaseUrl =
    input.baseUrl !== undefined ? input.baseUrl : stored?.provider === provider ? stored.baseUrl : null;
  const baseUrl =
    rawBaseUrl === null
      ? null
      : await checkProviderBaseUrl(rawBaseUrl, {
          allowPrivate: opts.allowPrivateUrls,
          resolve: opts.resolve,
        });
  if (provider === "openai-compatible" && baseUrl === null) {
    throw new ApiError("parameter_missing", "An `openai-compatible` provider needs `baseUrl`.", {
      param: "baseUrl",
    });
  }
  let apiKey: string | null = null;
  let keySource: KeySource = "none";
  if (input.apiKey !== undefined) {
    apiKey = input.apiKey;
    keySource = "supplied";
  } else if (stored?.sealedKey && stored.provider === provider && stored.baseUrl === baseUrl) {
    apiKey = decryptSecret(stored.sealedKey, opts.encryptionKey);
    keySource = "stored";
  } else if (provider !== "openai-compatible") {
    throw new ApiError(
      "parameter_missing",
      stored?.sealedKey
        ? "The stored key is used only with the stored provider and base URL; send `apiKey` to try another."
        : `The ${provider} provider needs an API key: send \`apiKey\`.`,
      { param: "apiKey" },
    );
  }
  return { config: { provider, model, apiKey, baseUrl, source: "byok" }, keySource };
}

function failureOf(error: ProviderFailure | null) {
  if (!error) return null;
  return {
    code: error.code,
    message: error.message,
    providerStatus: error.status,
    retryAfterSeconds: error.retryAfterSeconds,
  };
}

/** One minimal real call with the stored or supplied key: does it work, and if not, why. */
export async function testByok(
  ctx: CoreContext,
  actor: Actor,
  input: ByokCheckInput,
  opts: ByokCheckOptions,
): Promise<ByokTestResult> {
  const { config, keySource } = await configToCheck(ctx, actor, input, opts);
  const check = await testModel(config, { timeoutMs: opts.timeoutMs });
  return {
    object: "byok_test",
    ok: check.ok,
    provider: config.provider,
    model: config.model,
    keySource,
    latencyMs: check.latencyMs,
    error: check.ok ? null : failureOf(check.error),
  };
}

/** What the model can do for autousers: image input and structured output. */
export async function probeByok(
  ctx: CoreContext,
  actor: Actor,
  input: ByokCheckInput,
  opts: ByokCheckOptions,
): Promise<ByokProbeResult> {
  const { config, keySource } = await configToCheck(ctx, actor, input, opts);
  const started = performance.now();
  const probe = await probeModel(config, { timeoutMs: opts.timeoutMs });
  return {
    object: "byok_probe",
    ok: probe.error === null,
    provider: config.provider,
    model: config.model,
    keySource,
    latencyMs: Math.round(performance.now() - started),
    known: probe.known,
    capabilities: { imageInput: probe.imageInput, structuredOutput: probe.structuredOutput },
    basis: probe.basis,
    error: failureOf(probe.error),
  };
}
