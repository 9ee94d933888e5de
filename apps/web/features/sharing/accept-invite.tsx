"use client";

import { useMutation } from "@tanstack/react-query";
import Link from "next/link";
import { useTRPC } from "@/lib/trpc";
import { FormError } from "@/ui";

/** The page an invite email links to: the signed-in user accepts, and is taken to what they joined. */
export function AcceptInvite({ token }: { token: string }) {
  const trpc = useTRPC();
  const accept = useMutation(trpc.invites.accept.mutationOptions());
  const done = accept.data;
  return (
    <section className="card stack" aria-labelledby="invite-heading">
      <h1 id="invite-heading">You have been invited</h1>
      {done ? (
        <p role="status">
          Invitation accepted.{" "}
          {done.evaluationId ? (
            <Link href={`/evaluations/${done.evaluationId}`}>Open the evaluation</Link>
          ) : (
            <Link href="/members">See your team</Link>
          )}
        </p>
      ) : (
        <div>
          <button
            type="button"
            className="button button-primary"
            disabled={accept.isPending}
            onClick={() => accept.mutate({ token })}
          >
            Accept invitation
          </button>
        </div>
      )}
      <FormError error={accept.error} />
    </section>
  );
}
