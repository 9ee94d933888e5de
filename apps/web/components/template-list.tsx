"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useTemplateActions } from "@/components/template-actions";
import { errorMessage } from "@/lib/errors";
import { formatDateTime, formatRelative } from "@/lib/format";
import { formatScale, TEMPLATE_TYPE_LABELS } from "@/lib/templates";
import { useTRPC } from "@/lib/trpc";
import { PageHeader } from "@/ui/page-header";

export function TemplateList() {
  const trpc = useTRPC();
  const list = useQuery(trpc.templates.list.queryOptions({ limit: 100 }));
  const actions = useTemplateActions();

  return (
    <>
      <PageHeader
        title="Templates"
        description="The scales and guidelines raters score designs against."
        actions={
          <Link href="/templates/new" className="button button-primary">
            New template
          </Link>
        }
      />

      {actions.error && (
        <p className="alert alert-error" role="alert">
          {actions.error}
        </p>
      )}
      {list.isPending && <p className="muted">Loading templates…</p>}
      {list.isError && (
        <p className="alert alert-error" role="alert">
          {errorMessage(list.error)}
        </p>
      )}
      {list.data && (
        <div className="card table-card">
          <table className="table">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Type</th>
                <th scope="col">Scale</th>
                <th scope="col" className="num">
                  Version
                </th>
                <th scope="col">Updated</th>
                <th scope="col" className="actions">
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {list.data.data.map((t) => (
                <tr key={t.id}>
                  <td>
                    <div className="name-cell">
                      <Link href={`/templates/${t.id}`} className="row-link">
                        {t.name}
                      </Link>
                      {t.isSystem && <span className="badge badge-system">System</span>}
                    </div>
                  </td>
                  <td>
                    <span className="type-tag" title={TEMPLATE_TYPE_LABELS[t.type]}>
                      {t.type}
                    </span>
                  </td>
                  <td className="nowrap">{formatScale(t)}</td>
                  <td className="num">{t.version}</td>
                  <td data-testid="updated">
                    {t.isSystem ? (
                      // A system row's timestamp is when this deployment was seeded, not when its content changed.
                      <span className="muted">Built in</span>
                    ) : (
                      <time dateTime={t.updatedAt} title={formatDateTime(t.updatedAt)}>
                        {formatRelative(t.updatedAt)}
                      </time>
                    )}
                  </td>
                  <td className="actions nowrap">
                    <div className="button-row row-actions">
                      {!t.isSystem && (
                        <Link href={`/templates/${t.id}`} className="button button-ghost">
                          Edit
                        </Link>
                      )}
                      <button
                        type="button"
                        className="button button-ghost"
                        disabled={actions.pending}
                        onClick={() => actions.duplicate(t.id)}
                      >
                        Duplicate
                      </button>
                      {!t.isSystem && (
                        <button
                          type="button"
                          className="button button-danger-ghost"
                          disabled={actions.pending}
                          onClick={() => actions.remove(t.id, t.name)}
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
      {list.data?.has_more && <p className="muted small">Showing the 100 most recently updated templates.</p>}
    </>
  );
}
