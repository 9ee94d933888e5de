import { z } from "zod";
import { DateTime } from "./common";
import { listOf } from "./pagination";
import { TeamMember, TeamRole } from "./teams";

export const SHARE_PERMISSIONS = ["VIEWER", "EDITOR", "OWNER"] as const;
export const SharePermission = z.enum(SHARE_PERMISSIONS).meta({
  description:
    "VIEWER reads the evaluation and its results; EDITOR also edits it while Draft, manages its " +
    "comparisons, rates and runs autousers; OWNER also changes its status, link settings and people, and deletes it.",
});
export type SharePermission = (typeof SHARE_PERMISSIONS)[number];

const Email = z.email().max(320);

export const EvaluationShare = z
  .object({
    id: z.string(),
    object: z.literal("evaluation_share"),
    evaluationId: z.string(),
    permission: SharePermission,
    userId: z.string().nullable(),
    inviteEmail: z.string().nullable(),
    user: z
      .object({ id: z.string(), name: z.string().nullable(), email: z.string() })
      .nullable()
      .meta({ description: "The person the evaluation is shared with." }),
    createdAt: DateTime,
    updatedAt: DateTime,
  })
  .meta({ id: "EvaluationShare" });
export type EvaluationShare = z.infer<typeof EvaluationShare>;
export const EvaluationShareList = listOf(EvaluationShare, "EvaluationShareList");

export const ShareCreateInput = z
  .object({
    userId: z.string().min(1).max(100).optional(),
    email: Email.optional().meta({
      description: "Anyone's address: they get an invitation by e-mail and access once they accept it.",
    }),
    permission: SharePermission.default("VIEWER"),
  })
  .strict()
  // The core refuses both or neither (`shares.ts`); `oneOf` says the same to OpenAPI tools and generated clients.
  .meta({
    description: "Give exactly one of `userId` or `email`.",
    oneOf: [{ required: ["userId"] }, { required: ["email"] }],
  });
export const ShareUpdateInput = z.object({ permission: SharePermission }).strict();

export const INVITE_PERMISSIONS = ["VIEWER", "EDITOR"] as const;
export const InviteStatus = z.enum(["pending", "accepted", "revoked", "expired"]);

export const EvaluationInvite = z
  .object({
    id: z.string(),
    object: z.literal("evaluation_invite"),
    evaluationId: z.string(),
    email: z.string(),
    permission: z.enum(INVITE_PERMISSIONS),
    status: InviteStatus,
    expiresAt: DateTime,
    createdAt: DateTime,
  })
  .meta({ id: "EvaluationInvite" });
export const EvaluationInviteList = listOf(EvaluationInvite, "EvaluationInviteList");
export const InviteCreateInput = z
  .object({ email: Email, permission: z.enum(INVITE_PERMISSIONS).default("VIEWER") })
  .strict();

export const TeamInvite = z
  .object({
    id: z.string(),
    object: z.literal("team_invite"),
    teamId: z.string(),
    email: z.string(),
    role: TeamRole,
    status: InviteStatus,
    expiresAt: DateTime,
    createdAt: DateTime,
  })
  .meta({ id: "TeamInvite" });

export const InviteAccepted = z
  .object({
    object: z.literal("invite_acceptance"),
    kind: z.enum(["evaluation", "team"]),
    evaluationId: z.string().nullable(),
    teamId: z.string(),
    shareId: z.string().nullable(),
  })
  .meta({ id: "InviteAccepted" });

export const ACCESS_REQUEST_STATUSES = ["pending", "approved", "declined", "withdrawn"] as const;
export const AccessRequestStatus = z.enum(ACCESS_REQUEST_STATUSES);
export const AccessRequest = z
  .object({
    id: z.string(),
    object: z.literal("access_request"),
    evaluationId: z.string(),
    evaluationName: z.string(),
    requesterId: z.string(),
    requester: z.object({ id: z.string(), name: z.string().nullable(), email: z.string() }),
    status: AccessRequestStatus,
    message: z.string().nullable(),
    decidedAt: DateTime.nullable(),
    createdAt: DateTime,
    updatedAt: DateTime,
  })
  .meta({ id: "AccessRequest" });
export type AccessRequest = z.infer<typeof AccessRequest>;
export const AccessRequestList = listOf(AccessRequest, "AccessRequestList");
export const AccessRequestCreateInput = z.object({ message: z.string().max(500).optional() }).strict();
export const AccessRequestApproveInput = z
  .object({
    permission: SharePermission.optional().meta({ description: "The share to grant; VIEWER unless given." }),
  })
  .strict();

export const NOTIFICATION_KINDS = [
  "evaluation.shared",
  "evaluation.invited",
  "invite.accepted",
  "access_request.created",
  "access_request.approved",
  "access_request.declined",
  "evaluation.ended",
  "autouser_run.failed",
  "webhook_endpoint.disabled",
  "team.member_added",
  "team.ownership_transferred",
] as const;
export const NotificationKind = z.enum(NOTIFICATION_KINDS);
export type NotificationKind = (typeof NOTIFICATION_KINDS)[number];

export const Notification = z
  .object({
    id: z.string(),
    object: z.literal("notification"),
    kind: NotificationKind,
    title: z.string(),
    body: z.string().nullable(),
    data: z.record(z.string(), z.string()),
    link: z.string().nullable(),
    read: z.boolean(),
    readAt: DateTime.nullable(),
    createdAt: DateTime,
  })
  .meta({ id: "Notification" });
export type Notification = z.infer<typeof Notification>;
export const NotificationList = z
  .object({
    object: z.literal("list"),
    data: z.array(Notification),
    has_more: z.boolean(),
    next_cursor: z.string().optional(),
    unread_count: z.number().int().meta({ description: "How many of your notifications are unread." }),
  })
  .meta({ id: "NotificationList" });
export const NotificationsReadAll = z
  .object({ object: z.literal("notifications_read"), updated: z.number().int() })
  .meta({ id: "NotificationsReadAll" });

export const UserLookup = z
  .object({ object: z.literal("user"), id: z.string(), name: z.string().nullable(), email: z.string() })
  .meta({ id: "UserLookup" });
export const UserLookupQuery = z.object({ email: Email }).strict();

export const TeamMemberAddInput = z.object({ email: Email, role: TeamRole.default("member") }).strict();
export const TeamMemberUpdateInput = z.object({ role: TeamRole }).strict();

export const TeamMemberAddResult = z.union([TeamMember, TeamInvite]).meta({
  id: "TeamMemberAddResult",
  description: "The new member when the email has an account; otherwise the emailed invite to join.",
});
export const TeamMemberRemoval = z
  .object({
    object: z.literal("team_member_removal"),
    teamId: z.string(),
    userId: z.string(),
    removed: z.literal(true),
    revokedApiKeys: z
      .number()
      .int()
      .meta({ description: "The member's API keys on the team, revoked with them." }),
  })
  .meta({ id: "TeamMemberRemoval" });
