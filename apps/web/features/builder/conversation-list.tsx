"use client";

import { useMutation, useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { formatRelative } from "@/lib/format";
import { useTRPC } from "@/lib/trpc";
import { Badge, DataTable, FormError, PageHeader, QueryState } from "@/ui";

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
      <QueryState
        query={list}
        loading="Loading conversations…"
        isEmpty={(page) => page.data.length === 0}
        empty={<p className="muted">No conversations yet.</p>}
      >
        {(page) => (
          <DataTable
            caption="Conversations"
            rows={page.data}
            rowKey={(c) => c.id}
            columns={[
              {
                header: "Conversation",
                cell: (c) => (
                  <Link href={`/builder/${c.id}`} className="row-link">
                    {c.title ?? c.drafts.evaluation.name ?? "Untitled conversation"}
                  </Link>
                ),
              },
              { header: "Status", cell: (c) => <Badge>{c.status.replace("_", " ")}</Badge> },
              { header: "Updated", cell: (c) => formatRelative(c.updatedAt) },
            ]}
          />
        )}
      </QueryState>
    </>
  );
}
