"use client";

import type { AutouserListQuery } from "@rubricon/contracts";
import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useState } from "react";
import { useAutouserActions } from "@/components/autouser-actions";
import { EXPERTISE_LABELS, formatDevice, NEED_LABELS } from "@/lib/autousers";
import { errorMessage } from "@/lib/errors";
import { formatDateTime, formatRelative } from "@/lib/format";
import { useTRPC } from "@/lib/trpc";
import { PageHeader } from "@/ui/page-header";

type Filters = Pick<AutouserListQuery, "source" | "status" | "visibility">;

export function AutouserList() {
  const trpc = useTRPC();
  const [filters, setFilters] = useState<Filters>({});
  const list = useQuery(trpc.autousers.list.queryOptions({ limit: 100, ...filters }));
  const actions = useAutouserActions();

  const filter = <K extends keyof Filters>(key: K, value: string) =>
    setFilters((f) => ({ ...f, [key]: value === "" ? undefined : (value as Filters[K]) }));

  return (
    <>
      <PageHeader
        title="Autousers"
        description="Personas that rate designs the way a kind of person would."
        actions={
          <Link href="/autousers/new" className="button button-primary">
            New autouser
          </Link>
        }
      />

      <fieldset className="field-row form-fieldset">
        <legend className="visually-hidden">Filters</legend>
        <div className="field">
          <label htmlFor="filter-source">Source</label>
          <select
            id="filter-source"
            value={filters.source ?? ""}
            onChange={(e) => filter("source", e.target.value)}
          >
            <option value="">System and team</option>
            <option value="system">System</option>
            <option value="team">Team</option>
          </select>
        </div>
        <div className="field">
          <label htmlFor="filter-status">Status</label>
          <select
            id="filter-status"
            value={filters.status ?? ""}
            onChange={(e) => filter("status", e.target.value)}
          >
            <option value="">Any status</option>
            <option value="draft">Draft</option>
            <option value="published">Published</option>
          </select>
        </div>
        <div className="field">
          <label htmlFor="filter-visibility">Visibility</label>
          <select
            id="filter-visibility"
            value={filters.visibility ?? ""}
            onChange={(e) => filter("visibility", e.target.value)}
          >
            <option value="">Any visibility</option>
            <option value="private">Private</option>
            <option value="public">Public</option>
          </select>
        </div>
      </fieldset>

      {actions.error && (
        <p className="alert alert-error" role="alert">
          {actions.error}
        </p>
      )}
      {list.isPending && <p className="muted">Loading autousers…</p>}
      {list.isError && (
        <p className="alert alert-error" role="alert">
          {errorMessage(list.error)}
        </p>
      )}
      {list.data && list.data.data.length === 0 && <p className="muted">No autousers match these filters.</p>}
      {list.data && list.data.data.length > 0 && (
        <div className="card table-card">
          <table className="table">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Persona</th>
                <th scope="col">Device</th>
                <th scope="col">Status</th>
                <th scope="col">Updated</th>
                <th scope="col" className="actions">
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {list.data.data.map((a) => (
                <tr key={a.id}>
                  <td>
                    <div className="name-cell">
                      <Link href={`/autousers/${a.id}`} className="row-link">
                        {a.name}
                      </Link>
                      {a.isSystem && <span className="badge badge-system">System</span>}
                    </div>
                    <span className="muted small">{a.role}</span>
                  </td>
                  <td className="small">
                    {EXPERTISE_LABELS[a.expertise]}
                    {a.accessibilityNeeds.length > 0 &&
                      `; ${a.accessibilityNeeds.map((n) => NEED_LABELS[n]).join(", ")}`}
                  </td>
                  <td className="nowrap small">{formatDevice(a.device)}</td>
                  <td className="nowrap">
                    <span className="chip">{a.status === "published" ? "Published" : "Draft"}</span>{" "}
                    <span className="chip">{a.visibility === "public" ? "Public" : "Private"}</span>
                  </td>
                  <td data-testid="updated">
                    {a.isSystem ? (
                      // A system row's timestamp is when this deployment was seeded, not when its content changed.
                      <span className="muted">Built in</span>
                    ) : (
                      <time dateTime={a.updatedAt} title={formatDateTime(a.updatedAt)}>
                        {formatRelative(a.updatedAt)}
                      </time>
                    )}
                  </td>
                  <td className="actions nowrap">
                    <div className="button-row row-actions">
                      {!a.isSystem && (
                        <Link href={`/autousers/${a.id}`} className="button button-ghost">
                          Edit
                        </Link>
                      )}
                      <button
                        type="button"
                        className="button button-ghost"
                        disabled={actions.pending}
                        onClick={() => actions.duplicate(a.id)}
                      >
                        Duplicate
                      </button>
                      {!a.isSystem && (
                        <button
                          type="button"
                          className="button button-danger-ghost"
                          disabled={actions.pending}
                          onClick={() => actions.remove(a.id, a.name)}
                        >
                          Delete
                        </button>
                      )}
                    </div>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {list.data?.has_more && <p className="muted small">Showing the 100 most recently updated autousers.</p>}
    </>
  );
}
