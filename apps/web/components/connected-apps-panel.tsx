"use client";

import type { ConnectedApp } from "@rubricon/contracts";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { errorMessage } from "@/lib/errors";
import { formatDate } from "@/lib/format";
import { useTRPC } from "@/lib/trpc";
import { FormError } from "@/ui";
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
        {apps.isPending && <p className="muted">Loading apps…</p>}
        <FormError error={apps.error} />
        <FormError error={error} />
        {apps.data && apps.data.data.length === 0 && <p className="muted">No apps are connected.</p>}
        {apps.data && apps.data.data.length > 0 && (
          <div className="table-scroll">
            <table className="table">
              <thead>
                <tr>
                  <th scope="col">App</th>
                  <th scope="col">Redirects to</th>
                  <th scope="col">Teams</th>
                  <th scope="col">Scopes</th>
                  <th scope="col">Connected</th>
                  <th scope="col">
                    <span className="visually-hidden">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {apps.data.data.map((app) => (
                  <tr key={app.clientId}>
                    <td className="nowrap">{app.name}</td>
                    <td className="mono small">{app.redirectHosts.join(", ")}</td>
                    <td>{app.teamIds.map(teamName).join(", ")}</td>
                    <td>
                      <div className="chips">
                        {app.scopes.map((scope) => (
                          <span className="chip" key={scope}>
                            {scope}
                          </span>
                        ))}
                      </div>
                    </td>
                    <td className="nowrap">{formatDate(app.connectedAt)}</td>
                    <td className="actions">
                      <button
                        type="button"
                        className="button button-danger-ghost"
                        aria-label={`Disconnect ${app.name}`}
                        disabled={disconnect.isPending}
                        onClick={() => onDisconnect(app)}
                      >
                        Disconnect
                      </button>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>
    </>
  );
}
