import { z } from "zod";
import { DateTime } from "./common";

export const BYOK_PROVIDERS = ["openai", "anthropic", "google", "openai-compatible"] as const;
export const ByokProvider = z.enum(BYOK_PROVIDERS).meta({
  description:
    "`openai-compatible` is any server speaking OpenAI Chat Completions (Ollama, vLLM, LM Studio); it needs `baseUrl`.",
});

/** What can go wrong when calling a model; the same codes as the agents' provider failures. */
export const MODEL_FAILURE_CODES = [
  "provider_auth",
  "provider_rate_limited",
  "model_not_found",
  "provider_unreachable",
  "provider_error",
  "timeout",
  "invalid_reply",
] as const;

const TeamIdField = z.string().min(1).max(100).meta({
  description:
    "Team whose settings to act on; default: the credential's team (for users, the personal team).",
});

const ModelId = z
  .string()
  .min(1)
  .max(200)
  .regex(
    /^[A-Za-z0-9][A-Za-z0-9._:/@+-]*$/,
    "a model id such as gpt-4o-mini, claude-sonnet-4-5 or llama3.2:3b",
  )
  .refine((id) => !id.includes(".."), "a model id cannot contain `..`")
  .meta({ example: "gpt-4o-mini" });

const BaseUrl = z
  .string()
  .min(1)
  .max(2000)
  .meta({
    description:
      "The provider's API address, e.g. `http://localhost:11434/v1` for Ollama. Required for `openai-compatible`; " +
      "optional for the others (a proxy). https only, to public addresses, unless the deployment allows private ones.",
    example: "https://llm.example.com/v1",
  });

const ApiKeyField = z
  .string()
  .min(1)
  .max(500)
  .regex(/^[\x21-\x7e]+$/, "printable characters without spaces")
  .meta({
    description: "The provider's API key. Write only: never returned, stored encrypted.",
    writeOnly: true,
  });

export const ByokQuery = z.object({ teamId: TeamIdField.optional() }).strict();

export const ByokPutInput = z
  .object({
    teamId: TeamIdField.optional(),
    provider: ByokProvider,
    model: ModelId,
    baseUrl: BaseUrl.nullable().optional(),
    apiKey: ApiKeyField.nullable()
      .optional()
      .meta({
        description:
          "The provider's API key; omit to keep the stored one (only while provider and base URL stay the same), " +
          "null to remove it. Never returned.",
        writeOnly: true,
      }),
    enabled: z.boolean().optional().meta({ description: "Default true." }),
  })
  .strict()
  .meta({ id: "ByokSettingsReplace" });
export type ByokPutInput = z.infer<typeof ByokPutInput>;

export const ByokPatchInput = z
  .object({
    teamId: TeamIdField.optional(),
    provider: ByokProvider.optional(),
    model: ModelId.optional(),
    baseUrl: BaseUrl.nullable().optional(),
    apiKey: ApiKeyField.nullable().optional(),
    enabled: z.boolean().optional(),
  })
  .strict()
  .meta({ id: "ByokSettingsUpdate" });
export type ByokPatchInput = z.infer<typeof ByokPatchInput>;

export const ByokCheckInput = z
  .object({
    teamId: TeamIdField.optional(),
    provider: ByokProvider.optional(),
    model: ModelId.optional(),
    baseUrl: BaseUrl.nullable().optional(),
    apiKey: ApiKeyField.optional(),
  })
  .strict()
  .meta({
    id: "ByokCheckRequest",
    description:
      "Every field is optional and overrides the stored setting, so unsaved settings can be tried. The stored key " +
      "is used only with the stored provider and base URL; a different one needs `apiKey` too.",
  });
export type ByokCheckInput = z.infer<typeof ByokCheckInput>;

const ModelRef = z.object({ provider: ByokProvider, model: z.string() });

export const ByokSettings = z
  .object({
    object: z.literal("byok_settings"),
    teamId: z.string(),
    configured: z.boolean().meta({ description: "Whether the team has saved settings of its own." }),
    provider: ByokProvider.nullable(),
    model: z.string().nullable(),
    baseUrl: z.string().nullable(),
    enabled: z.boolean(),
    hasKey: z.boolean(),
    keyHint: z
      .string()
      .nullable()
      .meta({ description: "The key's last four characters, to tell keys apart; null without a key." }),
    updatedAt: DateTime.nullable(),
    effective: z
      .object({
        source: z.enum(["byok", "platform", "none"]),
        provider: ByokProvider.nullable(),
        model: z.string().nullable(),
      })
      .meta({
        description:
          "What autousers and the builder use now: these settings (`byok`), the platform default (`platform`) or " +
          "none (the heuristic judge and the rule-based builder).",
      }),
    platformDefault: ModelRef.nullable().meta({
      description: "The deployment's default model, if any (never its key).",
    }),
  })
  .meta({ id: "ByokSettings" });
export type ByokSettings = z.infer<typeof ByokSettings>;

export const ModelFailure = z
  .object({
    code: z.enum(MODEL_FAILURE_CODES),
    message: z.string(),
    providerStatus: z
      .number()
      .int()
      .nullable()
      .meta({ description: "The provider's HTTP status, when it answered." }),
    retryAfterSeconds: z.number().int().nullable(),
  })
  .meta({ id: "ModelFailure" });

const CheckedModel = {
  provider: ByokProvider,
  model: z.string(),
  keySource: z.enum(["stored", "supplied", "none"]),
  latencyMs: z.number().int().min(0),
};

export const ByokTestResult = z
  .object({
    object: z.literal("byok_test"),
    ok: z.boolean(),
    ...CheckedModel,
    error: ModelFailure.nullable(),
  })
  .meta({ id: "ByokTestResult" });
export type ByokTestResult = z.infer<typeof ByokTestResult>;

export const ByokProbeResult = z
  .object({
    object: z.literal("byok_probe"),
    ok: z.boolean().meta({
      description: "False when the provider could not be asked; the capabilities are then the table's.",
    }),
    ...CheckedModel,
    known: z.boolean().meta({ description: "Whether the model is in Rubricon's capability table." }),
    capabilities: z.object({ imageInput: z.boolean(), structuredOutput: z.boolean() }),
    basis: z.object({ imageInput: z.enum(["table", "call"]), structuredOutput: z.enum(["call"]) }),
    error: ModelFailure.nullable(),
  })
  .meta({ id: "ByokProbeResult" });
export type ByokProbeResult = z.infer<typeof ByokProbeResult>;
