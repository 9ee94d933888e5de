import { z } from "zod";
import { DateTime } from "./common";
import { listOf } from "./pagination";

/**
 * `self_hosted` is where new teams start on a deployment that does not bill (`BILLING_ENABLED` off, the default):
 * no monthly quotas, a generous per-minute budget. Billing on, they start on `free`.
 */
export const PLANS = ["free", "team", "pro", "enterprise", "self_hosted"] as const;
export const PlanSchema = z.enum(PLANS);
export type Plan = (typeof PLANS)[number];

export const TEAM_ROLES = ["owner", "admin", "member"] as const;
export const TeamRole = z.enum(TEAM_ROLES);
export type TeamRole = (typeof TEAM_ROLES)[number];

export const Team = z
  .object({
    id: z.string(),
    object: z.literal("team"),
    name: z.string(),
    description: z.string().nullable(),
    plan: PlanSchema,
    role: TeamRole.meta({
      description: "The caller's role on this team.",
    }).optional(),
    createdAt: DateTime,
    updatedAt: DateTime,
  })
  .meta({ id: "Team" });
export type Team = z.infer<typeof Team>;
export const TeamList = listOf(Team, "TeamList", true);

export const TeamCreateInput = z
  .object({
    name: z.string().trim().min(1).max(200),
    description: z.string().max(2000).nullable().optional(),
  })
  .strict();
export const TeamUpdateInput = z
  .object({
    name: z.string().trim().min(1).max(200).optional(),
    description: z.string().max(2000).nullable().optional(),
  })
  .strict();

export const TeamMember = z
  .object({
    id: z.string().meta({ description: "The member's user id; list cursors name it." }),
    object: z.literal("team_member"),
    userId: z.string(),
    teamId: z.string(),
    email: z.string(),
    name: z.string().nullable(),
    role: TeamRole,
    createdAt: DateTime,
  })
  .meta({ id: "TeamMember" });
export const TeamMemberList = listOf(TeamMember, "TeamMemberList", true);

export const TeamLeaveResult = z
  .object({
    teamId: z.string(),
    userId: z.string(),
    left: z.literal(true),
    revokedApiKeys: z.number().int().meta({ description: "Your API keys on the team, revoked as you left." }),
  })
  .meta({ id: "TeamLeaveResult" });

export const TeamAdminTransferInput = z
  .object({
    userId: z.string().min(1).max(100).meta({ description: "The member who becomes the team's owner." }),
  })
  .strict();

export const TeamAdminTransfer = z
  .object({
    object: z.literal("team_admin_transfer"),
    teamId: z.string(),
    previousOwner: TeamMember.meta({ description: "You, now an admin of the team." }),
    newOwner: TeamMember.meta({ description: "The member who now owns the team." }),
  })
  .meta({ id: "TeamAdminTransfer" });
