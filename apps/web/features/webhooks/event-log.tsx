"use client";

import { EVENT_TYPES, type EventType } from "@rubricon/contracts";
import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { useActingTeam } from "@/features/teams/use-acting-team";
import { formatDateTime, formatRelative } from "@/lib/format";
import { useTRPC } from "@/lib/trpc";
import { DataTable, Field, PageHeader, QueryState } from "@/ui";
import styles from "./webhooks.module.css";

const PAGE = 25;

/** The team's events, newest first, exactly as webhook deliveries carry them. */
export function EventLog() {
  const trpc = useTRPC();
  const { teamId, picker } = useActingTeam();
  const [type, setType] = useState<EventType | "">("");
  // Ids of the last event of each page already passed, so "Newer" can step back.
  const [cursors, setCursors] = useState<string[]>([]);
  const [open, setOpen] = useState<string | null>(null);
  const after = cursors.at(-1);
  const events = useQuery({
    ...trpc.events.list.queryOptions({
      limit: PAGE,
      teamId: teamId ?? undefined,
      ...(type ? { type } : {}),
      ...(after ? { starting_after: after } : {}),
    }),
    enabled: teamId !== null,
  });

  return (
    <>
      <PageHeader
        title="Events"
        description="Everything that happened in the team, kept whether or not a webhook received it: poll it or replay from it."
        actions={picker}
      />
      <section className="card stack" aria-labelledby="events-heading">
        <div className="section-head">
          <h2 id="events-heading">Event log</h2>
          <Field id="event-type" label="Type">
            {(props) => (
              <select
                {...props}
                value={type}
                onChange={(e) => {
                  setType(e.target.value as EventType | "");
                  setCursors([]);
                }}
              >
                <option value="">All types</option>
                {EVENT_TYPES.map((t) => (
                  <option key={t} value={t}>
                    {t}
                  </option>
                ))}
              </select>
            )}
          </Field>
        </div>
        {teamId && (
          <QueryState
            query={events}
            loading="Loading events…"
            isEmpty={(page) => page.data.length === 0}
            empty={<p className="muted">No events yet.</p>}
          >
            {(page) => (
              <DataTable
                bare
                label="Events"
                rows={page.data}
                rowKey={(event) => event.id}
                detail={(event) =>
                  open === event.id && <pre className={styles.payload}>{JSON.stringify(event, null, 2)}</pre>
                }
                columns={[
                  { header: "Type", className: "mono small", cell: (event) => event.type },
                  {
                    header: "Object",
                    className: "mono small",
                    cell: (event) => String(event.data.object.id ?? ""),
                  },
                  { header: "Event", className: "mono small muted", cell: (event) => event.id },
                  {
                    header: "When",
                    className: "nowrap",
                    cell: (event) => {
                      const at = new Date(event.created * 1000).toISOString();
                      return (
                        <time dateTime={at} title={formatDateTime(at)}>
                          {formatRelative(at)}
                        </time>
                      );
                    },
                  },
                  {
                    header: <span className="visually-hidden">Body</span>,
                    className: "actions",
                    cell: (event) => (
                      <button
                        type="button"
                        className="button button-ghost"
                        aria-expanded={open === event.id}
                        onClick={() => setOpen(open === event.id ? null : event.id)}
                      >
                        {open === event.id ? "Hide" : "Body"}
                      </button>
                    ),
                  },
                ]}
              />
            )}
          </QueryState>
        )}
        <div className="button-row">
          <button
            type="button"
            className="button"
            disabled={cursors.length === 0}
            onClick={() => setCursors((c) => c.slice(0, -1))}
          >
            Newer
          </button>
          <button
            type="button"
            className="button"
            disabled={!events.data?.has_more}
            onClick={() => {
              const last = events.data?.next_cursor;
              if (last) setCursors((c) => [...c, last]);
            }}
          >
            Older
          </button>
        </div>
      </section>
    </>
  );
}
