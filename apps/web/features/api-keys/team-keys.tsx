"use client";

import type { ApiKey } from "@rubricon/contracts";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { errorMessage } from "@/lib/errors";
import { useTRPC } from "@/lib/trpc";
import { FormError } from "@/ui";
import { useConfirm } from "@/ui/confirm-dialog";
import { ApiKeyTable } from "./api-key-table";

/** For owners and admins: every working key on their teams, whoever minted it, each revocable. */
export function TeamKeys() {
  const trpc = useTRPC();
  const teams = useQuery(trpc.teams.list.queryOptions({ limit: 100 }));
  const managed = teams.data?.data.filter((t) => t.role === "owner" || t.role === "admin") ?? [];
  if (managed.length === 0) return null;
  return (
    <>
      {managed.map((team) => (
        <TeamKeyTable key={team.id} teamId={team.id} teamName={team.name} />
      ))}
    </>
  );
}

function TeamKeyTable({ teamId, teamName }: { teamId: string; teamName: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const confirm = useConfirm();
  const keys = useQuery(trpc.apiKeys.listForTeam.queryOptions({ id: teamId, limit: 100 }));
  const members = useQuery(trpc.teams.members.list.queryOptions({ id: teamId, limit: 100 }));
  const who = new Map(members.data?.data.map((m) => [m.userId, m.email]) ?? []);
  const [error, setError] = useState<string | null>(null);
  const revoke = useMutation(
    trpc.apiKeys.revokeForTeam.mutationOptions({
      onSuccess: () => queryClient.invalidateQueries(trpc.apiKeys.pathFilter()),
      onError: (e) => setError(errorMessage(e)),
    }),
  );
  async function onRevoke(key: ApiKey) {
    const ok = await confirm({
      message: `Revoke “${key.name}” on ${teamName}? Requests using it will fail immediately.`,
      confirmLabel: "Revoke",
      destructive: true,
    });
    if (!ok) return;
    setError(null);
    revoke.mutate({ id: teamId, keyId: key.id });
  }
  const active = keys.data?.data.filter((k) => !k.revokedAt) ?? [];
  const headingId = `team-keys-${teamId}`;
  return (
    <section className="card" aria-labelledby={headingId}>
      <h2 id={headingId}>All keys on {teamName}</h2>
      <p className="muted small">Every member's keys on this team. Keys of members who leave are revoked.</p>
      <FormError error={keys.error} />
      <FormError error={error} />
      {keys.data && active.length === 0 && <p className="muted">No working keys on this team.</p>}
      {active.length > 0 && (
        <ApiKeyTable
          keys={active}
          extra={{
            title: "Minted by",
            cell: (key) => who.get(key.userId) ?? <span className="muted">A former member</span>,
          }}
          onRevoke={onRevoke}
          revoking={revoke.isPending}
          revokeLabel={(key) => `Revoke ${key.name} on ${teamName}`}
        />
      )}
    </section>
  );
}
