"use client";

import { EVENT_TYPES, type EventType } from "@rubricon/contracts";
import { useQuery } from "@tanstack/react-query";
import { Fragment, useState } from "react";
import { formatDateTime, formatRelative } from "@/lib/format";
import { useTRPC } from "@/lib/trpc";
import { FormError } from "@/ui";
import { PageHeader } from "@/ui/page-header";
import { useActingTeam } from "./use-acting-team";
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
          <div className="field">
            <label htmlFor="event-type">Type</label>
            <select
              id="event-type"
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
          </div>
        </div>
        {events.isPending && teamId && <p className="muted">Loading events…</p>}
        <FormError error={events.error} />
        {events.data && events.data.data.length === 0 && <p className="muted">No events yet.</p>}
        {events.data && events.data.data.length > 0 && (
          <div className="table-scroll">
            <table className="table" aria-label="Events">
              <thead>
                <tr>
                  <th scope="col">Type</th>
                  <th scope="col">Object</th>
                  <th scope="col">Event</th>
                  <th scope="col">When</th>
                  <th scope="col">
                    <span className="visually-hidden">Body</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {events.data.data.map((event) => {
                  const at = new Date(event.created * 1000).toISOString();
                  return (
                    <Fragment key={event.id}>
                      <tr>
                        <td className="mono small">{event.type}</td>
                        <td className="mono small">{String(event.data.object.id ?? "")}</td>
                        <td className="mono small muted">{event.id}</td>
                        <td className="nowrap">
                          <time dateTime={at} title={formatDateTime(at)}>
                            {formatRelative(at)}
                          </time>
                        </td>
                        <td className="actions">
                          <button
                            type="button"
                            className="button button-ghost"
                            aria-expanded={open === event.id}
                            onClick={() => setOpen(open === event.id ? null : event.id)}
                          >
                            {open === event.id ? "Hide" : "Body"}
                          </button>
                        </td>
                      </tr>
                      {open === event.id && (
                        <tr>
                          <td colSpan={5}>
                            <pre className={styles.payload}>{JSON.stringify(event, null, 2)}</pre>
                          </td>
                        </tr>
                      )}
                    </Fragment>
                  );
                })}
              </tbody>
            </table>
          </div>
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
