import { z } from "zod";

export const ERROR_TYPES = [
  "authentication_error",
  "authorization_error",
  "invalid_request_error",
  "not_found_error",
  "rate_limit_error",
  "api_error",
] as const;
export type ErrorType = (typeof ERROR_TYPES)[number];

/**
 * The one registry of error codes: each code fixes its type and HTTP status, so a thrower names only the code.
 * Codes the spec names keep its status; the rest are ours (see docs/decisions.md).
 */
export const ERROR_CODES = {
  // 400
  parameter_invalid: { type: "invalid_request_error", status: 400 },
  parameter_missing: { type: "invalid_request_error", status: 400 },
  parameter_unknown: { type: "invalid_request_error", status: 400 },
  invalid_json: { type: "invalid_request_error", status: 400 },
  invalid_cursor: { type: "invalid_request_error", status: 400 },
  idempotency_key_invalid: { type: "invalid_request_error", status: 400 },
  illegal_status_transition: { type: "invalid_request_error", status: 400 },
  evaluation_not_editable: { type: "invalid_request_error", status: 400 },
  last_owner_cannot_leave: { type: "invalid_request_error", status: 400 },
  email_taken: { type: "invalid_request_error", status: 400 },
  template_read_only: { type: "invalid_request_error", status: 400 },
  template_in_use: { type: "invalid_request_error", status: 400 },
  plan_not_self_service: { type: "invalid_request_error", status: 400 },
  evaluation_not_running: { type: "invalid_request_error", status: 400 },
  rater_details_required: { type: "invalid_request_error", status: 400 },
  webhook_url_invalid: { type: "invalid_request_error", status: 400 },
  webhook_endpoint_disabled: { type: "invalid_request_error", status: 400 },
  batch_too_large: { type: "invalid_request_error", status: 400 },
  // 401
  authentication_required: { type: "authentication_error", status: 401 },
  invalid_api_key: { type: "authentication_error", status: 401 },
  api_key_expired: { type: "authentication_error", status: 401 },
  api_key_revoked: { type: "authentication_error", status: 401 },
  invalid_access_token: { type: "authentication_error", status: 401 },
  invalid_session: { type: "authentication_error", status: 401 },
  invalid_credentials: { type: "authentication_error", status: 401 },
  // 403
  missing_required_scope: { type: "authorization_error", status: 403 },
  evaluation_no_access: { type: "authorization_error", status: 403 },
  plan_upgrade_required: { type: "authorization_error", status: 403 },
  team_mismatch: { type: "authorization_error", status: 403 },
  session_required: { type: "authorization_error", status: 403 },
  insufficient_role: { type: "authorization_error", status: 403 },
  cross_site_request: { type: "authorization_error", status: 403 },
  share_password_required: { type: "authorization_error", status: 403 },
  share_password_incorrect: { type: "authorization_error", status: 403 },
  share_autousers_only: { type: "authorization_error", status: 403 },
  share_team_members_only: { type: "authorization_error", status: 403 },
  share_rater_excluded: { type: "authorization_error", status: 403 },
  // 404
  route_not_found: { type: "not_found_error", status: 404 },
  resource_not_found: { type: "not_found_error", status: 404 },
  evaluation_not_found: { type: "not_found_error", status: 404 },
  comparison_not_found: { type: "not_found_error", status: 404 },
  template_not_found: { type: "not_found_error", status: 404 },
  template_version_not_found: { type: "not_found_error", status: 404 },
  team_not_found: { type: "not_found_error", status: 404 },
  api_key_not_found: { type: "not_found_error", status: 404 },
  rating_not_found: { type: "not_found_error", status: 404 },
  share_not_found: { type: "not_found_error", status: 404 },
  public_rater_not_found: { type: "not_found_error", status: 404 },
  webhook_endpoint_not_found: { type: "not_found_error", status: 404 },
  webhook_delivery_not_found: { type: "not_found_error", status: 404 },
  event_not_found: { type: "not_found_error", status: 404 },
  // other 4xx
  method_not_allowed: { type: "invalid_request_error", status: 405 },
  idempotency_key_reused: { type: "invalid_request_error", status: 409 },
  rating_already_exists: { type: "invalid_request_error", status: 409 },
  idempotency_replay_unavailable: { type: "invalid_request_error", status: 409 },
  idempotency_request_in_progress: {
    type: "invalid_request_error",
    status: 409,
  },
  route_sunset: { type: "invalid_request_error", status: 410 },
  request_too_large: { type: "invalid_request_error", status: 413 },
  unsupported_media_type: { type: "invalid_request_error", status: 415 },
  rate_limit_exceeded: { type: "rate_limit_error", status: 429 },
  quota_exceeded: { type: "rate_limit_error", status: 429 },
  // 5xx
  internal_error: { type: "api_error", status: 500 },
  feature_not_available: { type: "api_error", status: 503 },
} as const satisfies Record<string, { type: ErrorType; status: number }>;

export type ErrorCode = keyof typeof ERROR_CODES;

export const ErrorEnvelope = z
  .object({
    error: z.object({
      message: z.string(),
      type: z.enum(ERROR_TYPES),
      code: z.string().optional(),
      param: z.string().optional(),
      doc_url: z.string().optional(),
      request_id: z.string(),
      details: z.record(z.string(), z.unknown()).optional(),
    }),
  })
  .meta({
    id: "ErrorEnvelope",
    description: "The envelope of every error response.",
  });
export type ErrorEnvelope = z.infer<typeof ErrorEnvelope>;
