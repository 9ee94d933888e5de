"use client";

import { EVENT_TYPES, type EventType } from "@rubricon/contracts";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { type FormEvent, useState } from "react";
import { useActingTeam } from "@/features/teams/use-acting-team";
import { errorMessage } from "@/lib/errors";
import { formatDate, formatDateTime } from "@/lib/format";
import { useTRPC } from "@/lib/trpc";
import { DataTable, Field, FieldSet, FormError, PageHeader, QueryState, SubmitButton } from "@/ui";
import { SecretReveal } from "./secret-reveal";
import { WebhookStatus } from "./status";
import styles from "./webhooks.module.css";

export function WebhooksPanel() {
  const trpc = useTRPC();
  const { teamId, picker } = useActingTeam();
  const endpoints = useQuery({
    ...trpc.webhooks.list.queryOptions({ limit: 100, teamId: teamId ?? undefined }),
    enabled: teamId !== null,
  });
  const [created, setCreated] = useState<{ url: string; secret: string } | null>(null);

  return (
    <>
      <PageHeader
        title="Webhooks"
        description="Rubricon POSTs each event to your endpoints, signed with the endpoint's secret. See every delivery and retry failed ones here."
        actions={picker}
      />

      {created && (
        <SecretReveal
          title={`Endpoint created for ${created.url}`}
          secret={created.secret}
          onDone={() => setCreated(null)}
        />
      )}

      <div className="api-keys-layout">
        <section className="card" aria-labelledby="endpoints-heading">
          <h2 id="endpoints-heading">Endpoints</h2>
          {teamId && (
            <QueryState
              query={endpoints}
              loading="Loading endpoints…"
              isEmpty={(page) => page.data.length === 0}
              empty={<p className="muted">No endpoints yet. Add one to start receiving events.</p>}
            >
              {(page) => (
                <DataTable
                  bare
                  label="Endpoints"
                  rows={page.data}
                  rowKey={(endpoint) => endpoint.id}
                  columns={[
                    {
                      header: "URL",
                      cell: (endpoint) => (
                        <>
                          <Link href={`/webhooks/${endpoint.id}`} className="mono small">
                            {endpoint.url}
                          </Link>
                          {endpoint.description && <div className="muted small">{endpoint.description}</div>}
                        </>
                      ),
                    },
                    {
                      header: "Events",
                      cell: (endpoint) => (
                        <div className="chips">
                          {endpoint.enabled_events.map((type) => (
                            <span className="chip" key={type}>
                              {type === "*" ? "All events" : type}
                            </span>
                          ))}
                        </div>
                      ),
                    },
                    {
                      header: "Status",
                      className: "nowrap",
                      cell: (endpoint) => <WebhookStatus status={endpoint.status} />,
                    },
                    {
                      header: "Created",
                      className: "nowrap",
                      cell: (endpoint) => (
                        <time dateTime={endpoint.createdAt} title={formatDateTime(endpoint.createdAt)}>
                          {formatDate(endpoint.createdAt)}
                        </time>
                      ),
                    },
                  ]}
                />
              )}
            </QueryState>
          )}
        </section>

        {teamId && <CreateEndpointForm teamId={teamId} onCreated={setCreated} />}
      </div>
    </>
  );
}

function CreateEndpointForm({
  teamId,
  onCreated,
}: {
  teamId: string;
  onCreated: (created: { url: string; secret: string }) => void;
}) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [all, setAll] = useState(true);
  const [types, setTypes] = useState<EventType[]>([]);
  const [error, setError] = useState<string | null>(null);

  const create = useMutation(
    trpc.webhooks.create.mutationOptions({
      onSuccess: async (endpoint) => {
        onCreated({ url: endpoint.url, secret: endpoint.secret });
        await queryClient.invalidateQueries(trpc.webhooks.list.pathFilter());
      },
      onError: (err) => setError(errorMessage(err)),
    }),
  );

  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = event.currentTarget;
    const data = new FormData(form);
    const url = String(data.get("url") ?? "").trim();
    const description = String(data.get("description") ?? "").trim();
    if (!url) return setError("Enter the https URL that should receive events.");
    if (!all && types.length === 0) return setError("Choose at least one event type, or all events.");
    setError(null);
    create.mutate(
      {
        teamId,
        url,
        ...(description ? { description } : {}),
        enabled_events: all ? ["*"] : types,
      },
      {
        onSuccess: () => {
          form.reset();
          setTypes([]);
          setAll(true);
        },
      },
    );
  }

  return (
    <section className="card" aria-labelledby="create-endpoint-heading">
      <h2 id="create-endpoint-heading">Add an endpoint</h2>
      <form className="stack" onSubmit={onSubmit} noValidate>
        <Field id="endpoint-url" label="Endpoint URL">
          {(props) => (
            <input
              {...props}
              name="url"
              type="url"
              maxLength={2048}
              placeholder="https://example.com/webhooks/rubricon"
            />
          )}
        </Field>
        <Field id="endpoint-description" label="Description">
          {(props) => <input {...props} name="description" type="text" maxLength={500} />}
        </Field>
        <FieldSet legend="Events to send">
          <label className="checkbox">
            <input type="checkbox" checked={all} onChange={(e) => setAll(e.target.checked)} />
            <span>All events, including types added later</span>
          </label>
          {!all && (
            <div className={styles.eventsGrid}>
              {EVENT_TYPES.map((type) => (
                <label key={type} className="checkbox">
                  <input
                    type="checkbox"
                    checked={types.includes(type)}
                    onChange={(e) =>
                      setTypes((current) =>
                        e.target.checked ? [...current, type] : current.filter((t) => t !== type),
                      )
                    }
                  />
                  <span className="mono small">{type}</span>
                </label>
              ))}
            </div>
          )}
        </FieldSet>
        <FormError error={error} />
        <div>
          <SubmitButton pending={create.isPending} pendingLabel="Adding…">
            Add endpoint
          </SubmitButton>
        </div>
      </form>
    </section>
  );
}
