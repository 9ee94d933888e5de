import type { ReactNode } from "react";

/**
 * A form's primary button. While the form's request is in flight it is disabled, so a second press cannot send
 * the form twice, and says what is happening instead of what it does.
 */
export function SubmitButton({
  pending,
  pendingLabel = "Saving…",
  disabled = false,
  children = "Save",
}: {
  pending: boolean;
  pendingLabel?: string;
  /** Disabled for another reason too: the form is invalid or unchanged. */
  disabled?: boolean;
  children?: ReactNode;
}) {
  return (
    <button type="submit" className="button button-primary" disabled={pending || disabled}>
      {pending ? pendingLabel : children}
    </button>
  );
}
