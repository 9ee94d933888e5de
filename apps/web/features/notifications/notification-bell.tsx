"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { formatDateTime } from "@/lib/format";
import { useTRPC } from "@/lib/trpc";

/** The bell in the top bar: the unread count, and the latest notifications on click. */
export function NotificationBell() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [open, setOpen] = useState(false);
  const list = useQuery({ ...trpc.notifications.list.queryOptions({ limit: 20 }), refetchInterval: 30_000 });
  const refresh = () => queryClient.invalidateQueries(trpc.notifications.pathFilter());
  const read = useMutation(trpc.notifications.read.mutationOptions({ onSuccess: refresh }));
  const readAll = useMutation(trpc.notifications.readAll.mutationOptions({ onSuccess: refresh }));
  const unread = list.data?.unread_count ?? 0;
  return (
    <div className="notification-bell">
      <button
        type="button"
        className="button button-ghost"
        aria-expanded={open}
        aria-controls="notification-panel"
        onClick={() => setOpen(!open)}
      >
        <svg
          aria-hidden="true"
          width="16"
          height="16"
          viewBox="0 0 24 24"
          fill="none"
          stroke="currentColor"
          strokeWidth="2"
        >
          <path d="M18 8a6 6 0 0 0-12 0c0 7-3 9-3 9h18s-3-2-3-9" />
          <path d="M13.7 21a2 2 0 0 1-3.4 0" />
        </svg>
        <span className="bell-word">Notifications</span>{" "}
        <span className="badge" data-testid="unread-count">
          {unread}
        </span>
        <span className="visually-hidden"> unread</span>
      </button>
      {open && (
        <section id="notification-panel" className="card notification-panel" aria-label="Notifications">
          <div className="button-row">
            <button
              type="button"
              className="button button-ghost"
              onClick={() => readAll.mutate({})}
              disabled={unread === 0}
            >
              Mark all read
            </button>
          </div>
          {list.data && list.data.data.length === 0 && <p className="muted">Nothing yet.</p>}
          <ul className="stack">
            {list.data?.data.map((n) => (
              <li key={n.id} data-testid="notification" className={n.read ? "muted" : undefined}>
                {n.link ? (
                  <a
                    href={n.link}
                    onClick={(event) => {
                      if (n.read) return;
                      // A new tab keeps this page: mark it read on the side.
                      if (event.metaKey || event.ctrlKey || event.shiftKey || event.button !== 0) {
                        read.mutate({ id: n.id });
                        return;
                      }
                      // Leaving the page could cancel the request, so the notification is marked read first.
                      event.preventDefault();
                      const link = n.link!;
                      read.mutate({ id: n.id }, { onSettled: () => window.location.assign(link) });
                    }}
                  >
                    {n.title}
                  </a>
                ) : (
                  <span>{n.title}</span>
                )}
                {n.body && <div className="small">{n.body}</div>}
                <div className="small muted">
                  {formatDateTime(n.createdAt)}
                  {!n.read && (
                    <>
                      {" · "}
                      <button
                        type="button"
                        className="button button-ghost"
                        onClick={() => read.mutate({ id: n.id })}
                      >
                        Mark read
                      </button>
                    </>
                  )}
                </div>
              </li>
            ))}
          </ul>
        </section>
      )}
    </div>
  );
}
