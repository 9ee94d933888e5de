"use client";

import type { ApiKey } from "@rubricon/contracts";
import type { ReactNode } from "react";
import { formatDate, formatDateTime, formatRelative } from "@/lib/format";

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
    <div className="table-scroll">
      <table className="table">
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Key</th>
            <th scope="col">{extra.title}</th>
            <th scope="col">Last used</th>
            <th scope="col">Created</th>
            <th scope="col">
              <span className="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {keys.map((key) => (
            <tr key={key.id}>
              <td className="nowrap">{key.name}</td>
              <td className="nowrap">
                <code className="mono small">{key.prefix}…</code>
              </td>
              <td>{extra.cell(key)}</td>
              <td className="nowrap">
                {key.lastUsedAt ? (
                  <time dateTime={key.lastUsedAt} title={formatDateTime(key.lastUsedAt)}>
                    {formatRelative(key.lastUsedAt)}
                  </time>
                ) : (
                  <span className="muted">Never</span>
                )}
              </td>
              <td className="nowrap">
                <time dateTime={key.createdAt} title={formatDateTime(key.createdAt)}>
                  {formatDate(key.createdAt)}
                </time>
              </td>
              <td className="actions">
                <button
                  type="button"
                  className="button button-danger-ghost"
                  onClick={() => onRevoke(key)}
                  disabled={revoking}
                  aria-label={revokeLabel(key)}
                >
                  Revoke
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
