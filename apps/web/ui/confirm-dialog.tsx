"use client";

import { createContext, type ReactNode, useCallback, useContext, useEffect, useRef, useState } from "react";

interface ConfirmRequest {
  message: string;
  /** The confirming button's label, e.g. "Revoke". */
  confirmLabel?: string;
  destructive?: boolean;
}

type Confirm = (request: ConfirmRequest | string) => Promise<boolean>;

const ConfirmContext = createContext<Confirm | null>(null);

/**
 * One modal `<dialog>` for the whole app instead of `window.confirm`: it is styled, keyboard accessible (focus
 * starts on Cancel, Escape cancels) and testable as a dialog role.
 */
export function ConfirmProvider({ children }: { children: ReactNode }) {
  const [pending, setPending] = useState<(ConfirmRequest & { resolve: (ok: boolean) => void }) | null>(null);
  const ref = useRef<HTMLDialogElement>(null);

  const confirm = useCallback<Confirm>((request) => {
    const normalized = typeof request === "string" ? { message: request } : request;
    return new Promise<boolean>((resolve) => setPending({ ...normalized, resolve }));
  }, []);

  useEffect(() => {
    const dialog = ref.current;
    if (pending && dialog && !dialog.open) dialog.showModal();
  }, [pending]);

  function settle(ok: boolean) {
    pending?.resolve(ok);
    setPending(null);
    ref.current?.close();
  }

  return (
    <ConfirmContext.Provider value={confirm}>
      {children}
      <dialog
        ref={ref}
        className="card confirm-dialog"
        aria-labelledby="confirm-dialog-message"
        onCancel={(event) => {
          event.preventDefault();
          settle(false);
        }}
      >
        {pending && (
          <form
            method="dialog"
            className="stack"
            onSubmit={(event) => {
              event.preventDefault();
              settle(true);
            }}
          >
            <p id="confirm-dialog-message">{pending.message}</p>
            <div className="button-row">
              {/* biome-ignore lint/a11y/noAutofocus: a confirmation starts on its safe choice */}
              <button type="button" className="button" autoFocus onClick={() => settle(false)}>
                Cancel
              </button>
              <button
                type="submit"
                className={`button ${pending.destructive ? "button-danger" : "button-primary"}`}
              >
                {pending.confirmLabel ?? "Confirm"}
              </button>
            </div>
          </form>
        )}
      </dialog>
    </ConfirmContext.Provider>
  );
}

/** Asks the user to confirm; resolves true when they do. */
export function useConfirm(): Confirm {
  const confirm = useContext(ConfirmContext);
  if (!confirm) throw new Error("useConfirm needs a ConfirmProvider above it");
  return confirm;
}
