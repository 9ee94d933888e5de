import { z } from "zod";
import { DateTime } from "./common";
import type { Scope } from "./scopes";
import { ScopeSchema } from "./scopes";

/** What each scope lets an app do, in the words the consent page shows. */
export const SCOPE_DESCRIPTIONS: Record<Scope, string> = {
  "*": "Do everything you can do on the team",
  "templates:read": "See your templates",
  "templates:write": "Create, change and delete templates",
  "templates:*": "See, create, change and delete templates",
  "evaluations:read": "See your evaluations, their comparisons and results",
  "evaluations:write": "Create, change and delete evaluations",
  "evaluations:*": "See, create, change and delete evaluations",
  "autousers:read": "See your autousers, their calibration and runs",
  "autousers:write": "Create, change and delete autousers, and start calibration",
  "autousers:*": "See, create, change and delete autousers, and start calibration",
  "ratings:read": "See the ratings on evaluations you can read",
  "ratings:write": "Submit and delete ratings",
  "ratings:*": "See, submit and delete ratings",
  "webhooks:read": "See your webhook endpoints and their deliveries",
  "webhooks:write": "Create, change and delete webhook endpoints",
  "webhooks:*": "See, create, change and delete webhook endpoints",
  "events:read": "Read your team's event log",
};

export const ConnectedApp = z
  .object({
    object: z.literal("connected_app"),
    clientId: z.string(),
    name: z.string().meta({ description: "The name the app registered with, else its client id." }),
    redirectHosts: z.array(z.string()).meta({ description: "Hosts the app receives its authorizations at." }),
    teamIds: z.array(z.string()).meta({ description: "Teams the app may act on, one grant each." }),
    scopes: z.array(ScopeSchema),
    resources: z
      .array(z.string())
      .meta({ description: "Audiences of its tokens: the REST API, the MCP server." }),
    connectedAt: DateTime.meta({ description: "When the earliest of its current grants was given." }),
  })
  .meta({ id: "ConnectedApp" });
export type ConnectedApp = z.infer<typeof ConnectedApp>;

export const ConnectedAppList = z
  .object({ object: z.literal("list"), data: z.array(ConnectedApp), has_more: z.literal(false) })
  .meta({ id: "ConnectedAppList", description: "Every app holding a grant of yours; never paged." });

export const DisconnectedApp = z
  .object({ id: z.string(), object: z.literal("connected_app"), deleted: z.literal(true) })
  .meta({ id: "DisconnectedApp" });

export const ClientIdParam = z.object({ clientId: z.string().min(1).max(200) }).strict();

/** What the consent page shows about one pending authorization. */
export const ConsentDetails = z.object({
  uid: z.string(),
  client: z.object({
    clientId: z.string(),
    name: z.string(),
    redirectHost: z.string(),
    uri: z.string().nullable(),
  }),
  scopes: z.array(z.object({ scope: ScopeSchema, description: z.string() })),
  resources: z.array(z.string()),
  teams: z.array(z.object({ id: z.string(), name: z.string() })),
});
export type ConsentDetails = z.infer<typeof ConsentDetails>;

export const ConsentDecision = z
  .object({
    decision: z.enum(["allow", "deny"]),
    teamId: z.string().min(1).max(100).optional(),
  })
  .strict();

/** A pairing code as the user types it: letters and digits, a dash or spaces anywhere. */
const PairingCode = z
  .string()
  .min(1)
  .max(20)
  .meta({ description: "The short code the plugin shows, e.g. `BCDF-GHJK`." });

export const PluginPairing = z
  .object({
    object: z.literal("plugin_pairing"),
    code: PairingCode,
    pollingSecret: z.string().meta({
      description: "Sent with each poll; only the plugin that started the pairing knows it. Shown once.",
    }),
    verificationUrl: z.string().meta({ description: "The dashboard page where the user approves the code." }),
    interval: z.number().int().meta({ description: "Seconds to wait between polls." }),
    expiresAt: DateTime,
  })
  .meta({ id: "PluginPairing" });

export const PairingCodeParam = z.object({ code: PairingCode }).strict();

export const PairingPollInput = z
  .object({
    code: PairingCode,
    pollingSecret: z.string().min(1).max(200),
  })
  .strict();

export const PairingPollResult = z
  .object({
    object: z.literal("plugin_pairing_status"),
    status: z.enum(["pending", "approved"]),
    token: z
      .string()
      .optional()
      .meta({ description: "The plugin token (7 days), once, when the user has approved." }),
    expiresAt: DateTime.optional().meta({ description: "When the token expires." }),
  })
  .meta({ id: "PluginPairingStatus" });

export const PairingApproved = z
  .object({
    object: z.literal("plugin_pairing"),
    code: z.string(),
    status: z.literal("approved"),
  })
  .meta({ id: "PluginPairingApproved" });
