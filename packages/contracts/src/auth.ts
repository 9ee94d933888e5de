import { z } from "zod";
import { ScopeSchema } from "./scopes";

export const PRINCIPAL_KINDS = ["session", "api_key", "oauth", "plugin"] as const;
export const PrincipalKind = z.enum(PRINCIPAL_KINDS);

export const WhoAmI = z
  .object({
    object: z.literal("whoami"),
    userId: z.string(),
    email: z.string(),
    teamId: z.string().nullable().meta({
      description: "The team the credential is bound to; for sessions and plugin tokens, the personal team.",
    }),
    teamIds: z.array(z.string()).meta({ description: "Teams this principal can act on." }),
    principal: PrincipalKind,
    scopes: z
      .array(ScopeSchema)
      .optional()
      .meta({ description: "Present for API keys and OAuth tokens only." }),
  })
  .meta({ id: "WhoAmI" });

export const SignUpInput = z
  .object({
    email: z.email().max(320),
    password: z.string().min(8).max(200),
    name: z.string().trim().min(1).max(200).optional(),
  })
  .strict();
export const SignInInput = z
  .object({ email: z.email().max(320), password: z.string().min(1).max(200) })
  .strict();
