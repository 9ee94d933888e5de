"use client";

import { useMutation, useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { formatRelative } from "@/lib/format";
import { useTRPC } from "@/lib/trpc";
import { FormError } from "@/ui";
import { PageHeader } from "@/ui/page-header";

export function ConversationList() {
  const trpc = useTRPC();
  const router = useRouter();
  const list = useQuery(trpc.conversations.list.queryOptions({ limit: 50 }));
  const create = useMutation(
    trpc.conversations.create.mutationOptions({ onSuccess: (c) => router.push(`/builder/${c.id}`) }),
  );
  return (
    <>
      <PageHeader
        title="Builder"
        description="Describe what you want to learn; the assistant drafts the evaluation for you to review."
        actions={
          <button
            type="button"
            className="button button-primary"
            disabled={create.isPending}
            onClick={() => create.mutate({})}
          >
            New conversation
          </button>
        }
      />
      <FormError error={create.error} />
      {list.isPending && <p className="muted">Loading conversations…</p>}
      {list.data && list.data.data.length === 0 && <p className="muted">No conversations yet.</p>}
      {list.data && list.data.data.length > 0 && (
        <div className="card table-card">
          <table className="table">
            <thead>
              <tr>
                <th scope="col">Conversation</th>
                <th scope="col">Status</th>
                <th scope="col">Updated</th>
              </tr>
            </thead>
            <tbody>
              {list.data.data.map((c) => (
                <tr key={c.id}>
                  <td>
                    <Link href={`/builder/${c.id}`} className="row-link">
                      {c.title ?? c.drafts.evaluation.name ?? "Untitled conversation"}
                    </Link>
                  </td>
                  <td>
                    <span className="badge">{c.status.replace("_", " ")}</span>
                  </td>
                  <td>{formatRelative(c.updatedAt)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}
