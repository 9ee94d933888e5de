"use client";

import type { ApiKey } from "@rubricon/contracts";
import type { ReactNode } from "react";
import { formatDate, formatDateTime, formatRelative } from "@/lib/format";
import { ACTIONS_HEADER, DataTable } from "@/ui";

/**
 * A table of API keys with a revoke button on each row: the user's own keys (with their scopes) and a team's keys
 * (with who minted each) are the same table with one column different.
 */
export function ApiKeyTable({
  keys,
  extra,
  onRevoke,
  revoking,
  revokeLabel,
}: {
  keys: ApiKey[];
  extra: { title: string; cell: (key: ApiKey) => ReactNode };
  onRevoke: (key: ApiKey) => void;
  revoking: boolean;
  revokeLabel: (key: ApiKey) => string;
}) {
  return (
    <DataTable
      bare
      rows={keys}
      rowKey={(key) => key.id}
      columns={[
        { header: "Name", cell: (key) => key.name, className: "nowrap" },
        {
          header: "Key",
          cell: (key) => <code className="mono small">{key.prefix}…</code>,
          className: "nowrap",
        },
        { header: extra.title, cell: extra.cell },
        {
          header: "Last used",
          className: "nowrap",
          cell: (key) =>
            key.lastUsedAt ? (
              <time dateTime={key.lastUsedAt} title={formatDateTime(key.lastUsedAt)}>
                {formatRelative(key.lastUsedAt)}
              </time>
            ) : (
              <span className="muted">Never</span>
            ),
        },
        {
          header: "Created",
          className: "nowrap",
          cell: (key) => (
            <time dateTime={key.createdAt} title={formatDateTime(key.createdAt)}>
              {formatDate(key.createdAt)}
            </time>
          ),
        },
        {
          header: ACTIONS_HEADER,
          className: "actions",
          cell: (key) => (
            <button
              type="button"
              className="button button-danger-ghost"
              onClick={() => onRevoke(key)}
              disabled={revoking}
              aria-label={revokeLabel(key)}
            >
              Revoke
            </button>
          ),
        },
      ]}
    />
  );
}
