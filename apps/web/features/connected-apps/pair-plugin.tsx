"use client";

import { useMutation } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { errorMessage } from "@/lib/errors";
import { useTRPC } from "@/lib/trpc";
import { Field, FormError } from "@/ui";

/**
 * The user approves the code the design-tool plugin or the browser extension shows; it then acts as them for 7 days.
 */
export function PairPlugin({ initialCode }: { initialCode: string }) {
  const trpc = useTRPC();
  const [code, setCode] = useState(initialCode);
  const [error, setError] = useState<string | null>(null);
  const approve = useMutation(
    trpc.figma.approve.mutationOptions({ onError: (err) => setError(errorMessage(err)) }),
  );

  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setError(null);
    if (!code.trim()) return setError("Enter the code the plugin or extension shows.");
    approve.mutate({ code: code.trim() });
  }

  return (
    <section className="card stack" aria-labelledby="pair-heading">
      <h1 id="pair-heading">Pair the design-tool plugin or browser extension</h1>
      {approve.isSuccess ? (
        <p className="alert alert-info" role="status">
          Paired. Return to the plugin or extension: it signs in as you within a few seconds.
        </p>
      ) : (
        <form className="stack" onSubmit={onSubmit} noValidate>
          <p className="muted">
            Enter the code the plugin or extension shows. Approve only a code you started yourself: it will
            act as you on all your teams for 7 days.
          </p>
          <Field id="pair-code" label="Pairing code">
            {(props) => (
              <input
                {...props}
                className="mono"
                autoComplete="off"
                value={code}
                onChange={(e) => setCode(e.target.value)}
                placeholder="BCDF-GHJK"
              />
            )}
          </Field>
          <FormError error={error} />
          <div className="button-row">
            <button type="submit" className="button button-primary" disabled={approve.isPending}>
              Approve
            </button>
          </div>
        </form>
      )}
    </section>
  );
}
