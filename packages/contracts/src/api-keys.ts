import { z } from "zod";
import { DateTime } from "./common";
import { listOf } from "./pagination";
import { ScopeSchema } from "./scopes";

export const API_KEY_PREFIX = "ak_live_";

export const ApiKey = z
  .object({
    id: z.string(),
    object: z.literal("api_key"),
    name: z.string(),
    teamId: z.string(),
    userId: z.string().meta({ description: "The user who minted the key; it acts as them." }),
    prefix: z.string().meta({
      description: "The first characters of the key, for recognising it.",
    }),
    scopes: z.array(ScopeSchema),
    expiresAt: DateTime.nullable(),
    lastUsedAt: DateTime.nullable(),
    lastUsedIp: z.string().nullable(),
    revokedAt: DateTime.nullable(),
    createdAt: DateTime,
  })
  .meta({ id: "ApiKey" });
export type ApiKey = z.infer<typeof ApiKey>;

export const ApiKeyWithSecret = ApiKey.extend({
  key: z.string().meta({
    description: "The plaintext key. Shown once, at creation; store it now.",
  }),
}).meta({ id: "ApiKeyWithSecret" });

export const ApiKeyList = listOf(ApiKey, "ApiKeyList", true);

export const ApiKeyCreateInput = z
  .object({
    name: z.string().trim().min(1).max(200),
    scopes: z.array(ScopeSchema).min(1).max(20),
    teamId: z.string().min(1).max(100).optional().meta({
      description: "Team the key acts on; default the caller's personal team.",
    }),
    expiresAt: z.iso
      .datetime({ offset: true })
      .nullable()
      .optional()
      .meta({ description: "Optional expiry; default never." }),
  })
  .strict();
