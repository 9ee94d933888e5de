import { RubriconError } from "@rubricon/sdk";
import { UploadError } from "./upload";

export interface Explained {
  /** One sentence for the person at the screen. */
  message: string;
  /** The token is gone or expired: show the pairing screen again. */
  pairAgain: boolean;
}

/** Any failure, in words a designer reads at a glance; the API's own message is kept for the rest. */
export function explain(err: unknown): Explained {
  if (err instanceof RubriconError) {
    const detail = err.message ? ` (${err.message})` : "";
    switch (err.type) {
      case "authentication_error":
        return {
          message: "Your sign-in has expired or was revoked. Pair again to continue.",
          pairAgain: true,
        };
      case "authorization_error":
        if (err.code === "plan_upgrade_required") {
          return {
            message: "Your team's plan does not include this. Upgrade the plan in the dashboard.",
            pairAgain: false,
          };
        }
        return { message: `You do not have permission to do this${detail}.`, pairAgain: false };
      case "rate_limit_error":
        if (err.code === "quota_exceeded") {
          return {
            message: "Your team has used this month's quota. Upgrade the plan or wait for next month.",
            pairAgain: false,
          };
        }
        return { message: "Too many requests just now. Wait a minute and try again.", pairAgain: false };
      case "not_found_error":
        if (err.code === "pairing_not_found") {
          return { message: "This pairing code is no longer valid. Start pairing again.", pairAgain: true };
        }
        return { message: `Not found: it may have been deleted${detail}.`, pairAgain: false };
      case "invalid_request_error":
        if (err.code === "pairing_expired") {
          return {
            message: "The pairing code expired after 10 minutes. Start pairing again.",
            pairAgain: true,
          };
        }
        if (err.code === "file_too_large") {
          return {
            message: "The image is larger than your plan allows. Export a smaller frame.",
            pairAgain: false,
          };
        }
        return { message: `The server refused the request${detail}.`, pairAgain: false };
      case "connection_error":
      case "timeout_error":
        return {
          message: "Cannot reach the Rubricon server. Check its address and your connection.",
          pairAgain: false,
        };
      default:
        return { message: `The server had a problem${detail}. Try again.`, pairAgain: false };
    }
  }
  if (err instanceof UploadError) return { message: err.message, pairAgain: false };
  if (err instanceof TypeError && /fetch|network/i.test(err.message)) {
    return {
      message: "Cannot reach the Rubricon server. Check its address and your connection.",
      pairAgain: false,
    };
  }
  return { message: err instanceof Error ? err.message : String(err), pairAgain: false };
}
