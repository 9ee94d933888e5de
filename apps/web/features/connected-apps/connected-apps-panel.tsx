"use client";

import type { ConnectedApp } from "@rubricon/contracts";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { errorMessage } from "@/lib/errors";
import { formatDate } from "@/lib/format";
import { useTRPC } from "@/lib/trpc";
import { DataTable, FormError, QueryState } from "@/ui";
import { useConfirm } from "@/ui/confirm-dialog";
import { PageHeader } from "@/ui/page-header";

/** Third-party apps holding a grant of the signed-in user; disconnecting ends their tokens at once. */
export function ConnectedAppsPanel() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const confirm = useConfirm();
  const apps = useQuery(trpc.oauth.listConnectedApps.queryOptions({}));
  const teams = useQuery(trpc.teams.list.queryOptions({ limit: 100 }));
  const [error, setError] = useState<string | null>(null);
  const teamName = (id: string) => teams.data?.data.find((t) => t.id === id)?.name ?? id;

  const disconnect = useMutation(
    trpc.oauth.disconnect.mutationOptions({
      onSuccess: () => queryClient.invalidateQueries(trpc.oauth.pathFilter()),
      onError: (err) => setError(errorMessage(err)),
    }),
  );

  async function onDisconnect(app: ConnectedApp) {
    const ok = await confirm({
      message: `Disconnect “${app.name}”? It loses access at once.`,
      confirmLabel: "Disconnect",
      destructive: true,
    });
    if (!ok) return;
    setError(null);
    disconnect.mutate({ clientId: app.clientId });
  }

  return (
    <>
      <PageHeader
        title="Connected apps"
        description="Apps you allowed to use Rubricon as you, through OAuth."
      />
      <section className="card" aria-labelledby="apps-heading">
        <h2 id="apps-heading">Apps</h2>
        <FormError error={error} />
        <QueryState
          query={apps}
          loading="Loading apps…"
          isEmpty={(page) => page.data.length === 0}
          empty={<p className="muted">No apps are connected.</p>}
        >
          {(page) => (
            <DataTable
              bare
              caption="Connected apps"
              rows={page.data}
              rowKey={(app) => app.clientId}
              columns={[
                { header: "App", className: "nowrap", cell: (app) => app.name },
                {
                  header: "Redirects to",
                  className: "mono small",
                  cell: (app) => app.redirectHosts.join(", "),
                },
                { header: "Teams", cell: (app) => app.teamIds.map(teamName).join(", ") },
                {
                  header: "Scopes",
                  cell: (app) => (
                    <div className="chips">
                      {app.scopes.map((scope) => (
                        <span className="chip" key={scope}>
                          {scope}
                        </span>
                      ))}
                    </div>
                  ),
                },
                { header: "Connected", className: "nowrap", cell: (app) => formatDate(app.connectedAt) },
                {
                  header: <span className="visually-hidden">Actions</span>,
                  className: "actions",
                  cell: (app) => (
                    <button
                      type="button"
                      className="button button-danger-ghost"
                      aria-label={`Disconnect ${app.name}`}
                      disabled={disconnect.isPending}
                      onClick={() => onDisconnect(app)}
                    >
                      Disconnect
                    </button>
                  ),
                },
              ]}
            />
          )}
        </QueryState>
      </section>
    </>
  );
}
