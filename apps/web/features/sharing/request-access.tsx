"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { errorMessage } from "@/lib/errors";
import { formatDateTime } from "@/lib/format";
import { useTRPC } from "@/lib/trpc";
import { Field, FormError } from "@/ui";

/** Shown to a signed-in outsider who opened a link-shared evaluation: ask its owners for access. */
export function RequestAccess({ id }: { id: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const mine = useQuery(trpc.accessRequests.mine.queryOptions({ id, limit: 5 }));
  const [error, setError] = useState<string | null>(null);
  const refresh = () => queryClient.invalidateQueries(trpc.accessRequests.mine.pathFilter());
  const ask = useMutation(
    trpc.accessRequests.create.mutationOptions({
      onSuccess: refresh,
      onError: (e) => setError(errorMessage(e)),
    }),
  );
  const withdraw = useMutation(
    trpc.accessRequests.withdraw.mutationOptions({
      onSuccess: refresh,
      onError: (e) => setError(errorMessage(e)),
    }),
  );
  const pending = mine.data?.data.find((r) => r.status === "pending");
  const last = mine.data?.data[0];

  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setError(null);
    const message = String(new FormData(event.currentTarget).get("message") ?? "").trim();
    ask.mutate({ id, ...(message ? { message } : {}) });
  }

  return (
    <section className="card stack" aria-labelledby="request-heading">
      <h2 id="request-heading">Request access</h2>
      {pending ? (
        <>
          <p data-testid="access-request-status">
            Your request of {formatDateTime(pending.createdAt)} is pending; the owners have been told.
          </p>
          <div>
            <button
              type="button"
              className="button"
              onClick={() => withdraw.mutate({ id, requestId: pending.id })}
              disabled={withdraw.isPending}
            >
              Withdraw request
            </button>
          </div>
        </>
      ) : (
        <form className="stack" onSubmit={onSubmit}>
          {last && (
            <p className="muted" data-testid="access-request-status">
              Your last request was {last.status}.
            </p>
          )}
          <Field id="request-message" label="Message to the owners (optional)">
            {(props) => <textarea {...props} name="message" maxLength={500} rows={3} />}
          </Field>
          <div className="form-actions">
            <button type="submit" className="button button-primary" disabled={ask.isPending}>
              Request access
            </button>
          </div>
        </form>
      )}
      <FormError error={error} />
    </section>
  );
}
