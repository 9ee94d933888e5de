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
 * Codes the spec names keep its status; the rest are ours (see docs/decisions/). `summary` is the code's line in
 * the error-codes reference (`/docs/errors`, and docs/api/request-errors.md with other-errors.md), which every
 * error's `doc_url` points into.
 */
export const ERROR_CODES = {
  // 400
  parameter_invalid: {
    type: "invalid_request_error",
    status: 400,
    summary: "A parameter has the wrong type, format or value; `param` names it.",
  },
  parameter_missing: {
    type: "invalid_request_error",
    status: 400,
    summary: "A required parameter is absent; `param` names it.",
  },
  parameter_unknown: {
    type: "invalid_request_error",
    status: 400,
    summary: "The request carries a parameter the route does not accept; `param` names it.",
  },
  api_version_unknown: {
    type: "invalid_request_error",
    status: 400,
    summary: "The `Service-Version` header names no API version; the message lists the known ones.",
  },
  invalid_json: {
    type: "invalid_request_error",
    status: 400,
    summary: "The body is not a UTF-8 JSON object, or nests too deeply.",
  },
  invalid_cursor: {
    type: "invalid_request_error",
    status: 400,
    summary: "`starting_after` or `ending_before` is not a cursor this list answered.",
  },
  idempotency_key_invalid: {
    type: "invalid_request_error",
    status: 400,
    summary: "The `Idempotency-Key` header is empty or too long.",
  },
  illegal_status_transition: {
    type: "invalid_request_error",
    status: 400,
    summary: "The evaluation cannot move from its status to the one asked for.",
  },
  evaluation_not_editable: {
    type: "invalid_request_error",
    status: 400,
    summary: "The evaluation's status no longer allows this change.",
  },
  last_owner_cannot_leave: {
    type: "invalid_request_error",
    status: 400,
    summary: "The team's last owner cannot leave it; make someone else owner first.",
  },
  email_taken: {
    type: "invalid_request_error",
    status: 400,
    summary: "An account with this email already exists.",
  },
  template_read_only: {
    type: "invalid_request_error",
    status: 400,
    summary: "Built-in templates cannot be changed; duplicate one instead.",
  },
  template_in_use: {
    type: "invalid_request_error",
    status: 400,
    summary: "An evaluation uses this template, so it cannot be deleted.",
  },
  autouser_read_only: {
    type: "invalid_request_error",
    status: 400,
    summary: "Built-in autousers cannot be changed; duplicate one instead.",
  },
  autouser_in_use: {
    type: "invalid_request_error",
    status: 400,
    summary: "An evaluation or run uses this autouser, so it cannot be deleted.",
  },
  plan_not_self_service: {
    type: "invalid_request_error",
    status: 400,
    summary: "This plan cannot be chosen from the API or dashboard; contact the operator.",
  },
  evaluation_not_running: {
    type: "invalid_request_error",
    status: 400,
    summary: "Ratings and runs need a Running evaluation.",
  },
  rater_details_required: {
    type: "invalid_request_error",
    status: 400,
    summary: "The share link asks raters for their name or email before rating.",
  },
  webhook_url_invalid: {
    type: "invalid_request_error",
    status: 400,
    summary: "The endpoint URL is not an allowed https URL (or resolves to a private address).",
  },
  webhook_endpoint_disabled: {
    type: "invalid_request_error",
    status: 400,
    summary: "The webhook endpoint is disabled; enable it first.",
  },
  batch_too_large: {
    type: "invalid_request_error",
    status: 400,
    summary: "The batch holds more calls than a batch may.",
  },
  conversation_not_ready: {
    type: "invalid_request_error",
    status: 400,
    summary: "The conversation's drafts are not complete yet; `param` names the first gap.",
  },
  byok_base_url_invalid: {
    type: "invalid_request_error",
    status: 400,
    summary: "The model provider base URL is not an allowed URL.",
  },
  file_type_not_allowed: {
    type: "invalid_request_error",
    status: 400,
    summary: "The file's content type is not one the upload accepts.",
  },
  file_type_mismatch: {
    type: "invalid_request_error",
    status: 400,
    summary: "The uploaded bytes are not of the declared content type.",
  },
  file_size_mismatch: {
    type: "invalid_request_error",
    status: 400,
    summary: "The uploaded byte count differs from the declared size.",
  },
  file_not_ready: {
    type: "invalid_request_error",
    status: 400,
    summary: "The file's upload has not completed or was rejected.",
  },
  link_preview_unavailable: {
    type: "invalid_request_error",
    status: 400,
    summary: "The page could not be fetched for a preview.",
  },
  pairing_expired: {
    type: "invalid_request_error",
    status: 400,
    summary: "The pairing code expired; start pairing again.",
  },
  authorization_request_expired: {
    type: "invalid_request_error",
    status: 400,
    summary: "The OAuth authorization request expired; start sign-in again.",
  },
  last_owner_required: {
    type: "invalid_request_error",
    status: 400,
    summary: "The change would leave the team without an owner.",
  },
  already_has_access: {
    type: "invalid_request_error",
    status: 400,
    summary: "The person already has access to the evaluation.",
  },
  already_member: {
    type: "invalid_request_error",
    status: 400,
    summary: "The person is already a member of the team.",
  },
  invite_expired: {
    type: "invalid_request_error",
    status: 400,
    summary: "The invitation expired; ask for a new one.",
  },
  invite_already_used: {
    type: "invalid_request_error",
    status: 400,
    summary: "The invitation was already accepted.",
  },
  invite_revoked: { type: "invalid_request_error", status: 400, summary: "The invitation was revoked." },
  access_requests_not_accepted: {
    type: "invalid_request_error",
    status: 400,
    summary: "The evaluation does not take access requests.",
  },
  access_request_not_pending: {
    type: "invalid_request_error",
    status: 400,
    summary: "The access request was already decided or withdrawn.",
  },
  // 401
  authentication_required: {
    type: "authentication_error",
    status: 401,
    summary: "No credentials were sent; send an API key or access token as `Authorization: Bearer`.",
  },
  invalid_api_key: {
    type: "authentication_error",
    status: 401,
    summary: "The API key is not one Rubricon issued.",
  },
  api_key_expired: {
    type: "authentication_error",
    status: 401,
    summary: "The API key is past its expiry date.",
  },
  api_key_revoked: { type: "authentication_error", status: 401, summary: "The API key was revoked." },
  invalid_access_token: {
    type: "authentication_error",
    status: 401,
    summary: "The OAuth access token is invalid, expired or revoked.",
  },
  invalid_session: {
    type: "authentication_error",
    status: 401,
    summary: "The dashboard session is invalid or expired; sign in again.",
  },
  invalid_credentials: {
    type: "authentication_error",
    status: 401,
    summary: "The email or password is wrong.",
  },
  // 403
  missing_required_scope: {
    type: "authorization_error",
    status: 403,
    summary: "The key or token lacks the scope this route needs; `details` names it.",
  },
  evaluation_no_access: {
    type: "authorization_error",
    status: 403,
    summary: "You cannot see or change this evaluation.",
  },
  plan_upgrade_required: {
    type: "authorization_error",
    status: 403,
    summary: "The team's plan does not include this feature.",
  },
  team_mismatch: {
    type: "authorization_error",
    status: 403,
    summary: "The credential is bound to another team than the one asked for.",
  },
  session_required: {
    type: "authorization_error",
    status: 403,
    summary: "This route accepts a dashboard session only, not an API key or token.",
  },
  insufficient_role: {
    type: "authorization_error",
    status: 403,
    summary: "Your role on the team does not allow this.",
  },
  cross_site_request: {
    type: "authorization_error",
    status: 403,
    summary: "A cookie-authenticated request came from another origin.",
  },
  share_password_required: {
    type: "authorization_error",
    status: 403,
    summary: "The share link needs its password.",
  },
  share_password_incorrect: {
    type: "authorization_error",
    status: 403,
    summary: "The share link's password is wrong.",
  },
  share_autousers_only: {
    type: "authorization_error",
    status: 403,
    summary: "The share link is for autousers only.",
  },
  share_team_members_only: {
    type: "authorization_error",
    status: 403,
    summary: "The share link is for team members only.",
  },
  share_rater_excluded: {
    type: "authorization_error",
    status: 403,
    summary: "This rater was excluded from the evaluation.",
  },
  signed_url_invalid: {
    type: "authorization_error",
    status: 403,
    summary: "The signed file URL is invalid or expired.",
  },
  insufficient_permission: {
    type: "authorization_error",
    status: 403,
    summary: "Your access to the evaluation does not allow this.",
  },
  invite_email_mismatch: {
    type: "authorization_error",
    status: 403,
    summary: "The invitation is for another email address.",
  },
  // 404
  route_not_found: { type: "not_found_error", status: 404, summary: "No route matches the method and path." },
  resource_not_found: {
    type: "not_found_error",
    status: 404,
    summary: "The object does not exist or you cannot see it.",
  },
  evaluation_not_found: {
    type: "not_found_error",
    status: 404,
    summary: "No evaluation with this id that you can see.",
  },
  comparison_not_found: {
    type: "not_found_error",
    status: 404,
    summary: "No comparison with this id in the evaluation.",
  },
  template_not_found: {
    type: "not_found_error",
    status: 404,
    summary: "No template with this id that you can see.",
  },
  template_version_not_found: {
    type: "not_found_error",
    status: 404,
    summary: "The template has no such version.",
  },
  team_not_found: {
    type: "not_found_error",
    status: 404,
    summary: "No team with this id that you belong to.",
  },
  api_key_not_found: {
    type: "not_found_error",
    status: 404,
    summary: "No API key with this id on the team.",
  },
  rating_not_found: {
    type: "not_found_error",
    status: 404,
    summary: "No rating with this id that you can see.",
  },
  share_not_found: {
    type: "not_found_error",
    status: 404,
    summary: "No share with this id on the evaluation, or the share link is wrong.",
  },
  public_rater_not_found: {
    type: "not_found_error",
    status: 404,
    summary: "No such rater on the evaluation.",
  },
  webhook_endpoint_not_found: {
    type: "not_found_error",
    status: 404,
    summary: "No webhook endpoint with this id on the team.",
  },
  webhook_delivery_not_found: {
    type: "not_found_error",
    status: 404,
    summary: "No delivery with this id for the endpoint.",
  },
  event_not_found: { type: "not_found_error", status: 404, summary: "No event with this id for the team." },
  byok_settings_not_found: {
    type: "not_found_error",
    status: 404,
    summary: "The team has no model key for this provider.",
  },
  autouser_not_found: {
    type: "not_found_error",
    status: 404,
    summary: "No autouser with this id that you can see.",
  },
  rubric_not_found: {
    type: "not_found_error",
    status: 404,
    summary: "No rubric with this id on the autouser.",
  },
  autouser_run_not_found: {
    type: "not_found_error",
    status: 404,
    summary: "No autouser run with this id on the evaluation.",
  },
  file_not_found: { type: "not_found_error", status: 404, summary: "No file with this id." },
  connected_app_not_found: {
    type: "not_found_error",
    status: 404,
    summary: "No connected app with this id.",
  },
  pairing_not_found: { type: "not_found_error", status: 404, summary: "No pairing with this code." },
  user_not_found: { type: "not_found_error", status: 404, summary: "No user with this email." },
  member_not_found: { type: "not_found_error", status: 404, summary: "No member with this id on the team." },
  invite_not_found: { type: "not_found_error", status: 404, summary: "No invitation with this id or token." },
  access_request_not_found: {
    type: "not_found_error",
    status: 404,
    summary: "No access request with this id.",
  },
  notification_not_found: { type: "not_found_error", status: 404, summary: "No notification with this id." },
  conversation_not_found: { type: "not_found_error", status: 404, summary: "No conversation with this id." },
  // other 4xx
  method_not_allowed: {
    type: "invalid_request_error",
    status: 405,
    summary: "The path exists but not with this method; `Allow` lists the methods.",
  },
  idempotency_key_reused: {
    type: "invalid_request_error",
    status: 409,
    summary: "The `Idempotency-Key` was used with a different request.",
  },
  evaluation_not_draft: {
    type: "invalid_request_error",
    status: 409,
    summary: "Only a Draft evaluation can be edited this way; its status has moved on.",
  },
  evaluation_runs_active: {
    type: "invalid_request_error",
    status: 409,
    summary: "Autouser runs of the evaluation are queued or running; stop them or wait for them to finish.",
  },
  evaluation_same_team: {
    type: "invalid_request_error",
    status: 409,
    summary: "The evaluation already belongs to that team.",
  },
  rating_already_exists: {
    type: "invalid_request_error",
    status: 409,
    summary: "This rater already rated the comparison.",
  },
  conversation_closed: { type: "invalid_request_error", status: 409, summary: "The conversation is closed." },
  conversation_full: {
    type: "invalid_request_error",
    status: 409,
    summary: "The conversation has reached its message limit.",
  },
  reply_in_progress: {
    type: "invalid_request_error",
    status: 409,
    summary: "A reply is still being written; wait for it.",
  },
  rubric_already_exists: {
    type: "invalid_request_error",
    status: 409,
    summary: "The autouser already has a rubric for this template.",
  },
  rubric_superseded: {
    type: "invalid_request_error",
    status: 409,
    summary: "A newer rubric replaced this one.",
  },
  calibration_not_completed: {
    type: "invalid_request_error",
    status: 409,
    summary:
      "The autouser has no completed calibration to work from yet; calibrate it and wait for the figures.",
  },
  access_request_already_pending: {
    type: "invalid_request_error",
    status: 409,
    summary: "You already have a pending request for this evaluation.",
  },
  idempotency_replay_unavailable: {
    type: "invalid_request_error",
    status: 409,
    summary:
      "The first answer to this `Idempotency-Key` held a secret that is not kept, so it cannot be replayed.",
  },
  idempotency_request_in_progress: {
    type: "invalid_request_error",
    status: 409,
    summary: "A request with this `Idempotency-Key` is still running; retry later.",
  },
  route_sunset: {
    type: "invalid_request_error",
    status: 410,
    summary: "The route was removed after its sunset date; the message names its successor.",
  },
  request_too_large: {
    type: "invalid_request_error",
    status: 413,
    summary: "The request body is larger than the route accepts.",
  },
  file_too_large: {
    type: "invalid_request_error",
    status: 413,
    summary: "The file is larger than the upload limit.",
  },
  unsupported_media_type: {
    type: "invalid_request_error",
    status: 415,
    summary: "The body's `Content-Type` is not one the route accepts.",
  },
  calibration_too_few_pairs: {
    type: "invalid_request_error",
    status: 422,
    summary:
      "Too few comparisons carry both the autouser's and human ratings to fit on some and test on the rest.",
  },
  rate_limit_exceeded: {
    type: "rate_limit_error",
    status: 429,
    summary: "Too many requests; wait the `Retry-After` seconds.",
  },
  quota_exceeded: {
    type: "rate_limit_error",
    status: 429,
    summary: "The team used its plan's monthly quota; `details` says which.",
  },
  // 5xx
  internal_error: {
    type: "api_error",
    status: 500,
    summary: "Something failed on the server; retry later, quoting the request id.",
  },
  model_error: {
    type: "api_error",
    status: 502,
    summary: "The model provider failed or refused; `details` says why.",
  },
  database_unavailable: {
    type: "api_error",
    status: 503,
    summary:
      "The database did not answer in time or refused the connection; retry after `Retry-After` seconds.",
  },
  server_stopping: {
    type: "api_error",
    status: 503,
    summary: "The server stopped before this request could finish; retry it after `Retry-After` seconds.",
  },
  feature_not_available: {
    type: "api_error",
    status: 503,
    summary: "The feature is switched off on this deployment.",
  },
} as const satisfies Record<string, { type: ErrorType; status: number; summary: string }>;

export type ErrorCode = keyof typeof ERROR_CODES;

/** Where the reference explains a code: its row in the dashboard's error-codes table. */
export const ERROR_DOCS_PATH = "/docs/errors";

/** An error's `doc_url`, Stripe-style: absolute, so a log line or a terminal can open it as is. */
export function errorDocUrl(baseUrl: string, code: string): string {
  return `${baseUrl.replace(/\/+$/, "")}${ERROR_DOCS_PATH}#${code}`;
}

export const ErrorEnvelope = z
  .object({
    error: z.object({
      message: z.string(),
      type: z.enum(ERROR_TYPES),
      code: z.string().optional(),
      param: z.string().optional(),
      doc_url: z.string().meta({
        description: "The code's entry in the error-codes reference: `<BASE_URL>/docs/errors#<code>`.",
        example: "https://rubricon.example.com/docs/errors#parameter_missing",
      }),
      request_id: z.string(),
      details: z.record(z.string(), z.unknown()).optional(),
    }),
  })
  .meta({
    id: "ErrorEnvelope",
    description: "The envelope of every error response.",
  });
export type ErrorEnvelope = z.infer<typeof ErrorEnvelope>;
