"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import type { ReactNode } from "react";
import { formatDateTime, formatRelative } from "@/lib/format";
import { useTRPC } from "@/lib/trpc";
import { Badge, FormError, Loading, PageHeader } from "@/ui";
import type { CatalogActions } from "./use-catalog-actions";

interface CatalogRow {
  id: string;
  name: string;
  isSystem: boolean;
  updatedAt: string;
}

/** The row's name, linking to its page, with a System badge for the built-in ones. */
export function CatalogName({ row, path }: { row: CatalogRow; path: string }) {
  return (
    <div className="name-cell">
      <Link href={`${path}/${row.id}`} className="row-link">
        {row.name}
      </Link>
      {row.isSystem && <Badge tone="system">System</Badge>}
    </div>
  );
}

/** When the row last changed; a system row's timestamp is when this deployment was seeded, so it says so instead. */
export function CatalogUpdated({ row }: { row: CatalogRow }) {
  return (
    <span data-testid="updated">
      {row.isSystem ? (
        <span className="muted">Built in</span>
      ) : (
        <time dateTime={row.updatedAt} title={formatDateTime(row.updatedAt)}>
          {formatRelative(row.updatedAt)}
        </time>
      )}
    </span>
  );
}

/** Edit, Duplicate, Delete on a list row; system rows can only be duplicated. */
export function CatalogRowActions({
  row,
  path,
  actions,
}: {
  row: CatalogRow;
  path: string;
  actions: CatalogActions;
}) {
  return (
    <div className="button-row row-actions">
      {!row.isSystem && (
        <Link href={`${path}/${row.id}`} className="button button-ghost">
          Edit
        </Link>
      )}
      <button
        type="button"
        className="button button-ghost"
        disabled={actions.pending}
        onClick={() => actions.duplicate(row.id)}
      >
        Duplicate
      </button>
      {!row.isSystem && (
        <button
          type="button"
          className="button button-danger-ghost"
          disabled={actions.pending}
          onClick={() => actions.remove(row.id, row.name)}
        >
          Delete
        </button>
      )}
    </div>
  );
}

/** Duplicate and Delete in a detail page's header. */
export function CatalogDetailActions({ row, actions }: { row: CatalogRow; actions: CatalogActions }) {
  return (
    <>
      <button
        type="button"
        className="button"
        disabled={actions.pending}
        onClick={() => actions.duplicate(row.id)}
      >
        Duplicate
      </button>
      {!row.isSystem && (
        <button
          type="button"
          className="button button-danger-ghost"
          disabled={actions.pending}
          onClick={() => actions.remove(row.id, row.name)}
        >
          Delete
        </button>
      )}
    </>
  );
}

/** The breadcrumb back to the catalog list. */
export function CatalogBreadcrumb({ path, label }: { path: string; label: string }) {
  return (
    <>
      <Link href={path}>{label}</Link>
      <span aria-hidden="true">/</span>
    </>
  );
}

/** A system row is read-only; the note says how to get an editable copy. */
export function SystemNote({ row, noun }: { row: CatalogRow; noun: string }) {
  if (!row.isSystem) return null;
  return (
    <p className="alert alert-info" role="note">
      This is a system {noun} and is read-only. Duplicate it to make a copy your team can edit.
    </p>
  );
}

/** The "New …" page: the form appears once the team it saves into is known. */
export function CatalogCreatePage({
  noun,
  path,
  label,
  form,
}: {
  noun: string;
  path: string;
  label: string;
  form: (teamId: string) => ReactNode;
}) {
  const trpc = useTRPC();
  // The dashboard shell has already loaded whoami, so this reads the cache.
  const whoami = useQuery(trpc.auth.whoami.queryOptions({}));
  const teamId = whoami.data?.teamId;
  return (
    <>
      <PageHeader title={`New ${noun}`} breadcrumb={<CatalogBreadcrumb path={path} label={label} />} />
      {whoami.isPending && <Loading />}
      {whoami.isError && <FormError error={whoami.error} />}
      {whoami.data && !teamId && (
        <FormError
          error={`You are not a member of a team, so there is nowhere to save ${/^[aeiou]/.test(noun) ? "an" : "a"} ${noun}.`}
        />
      )}
      {teamId && <div className="form-card">{form(teamId)}</div>}
    </>
  );
}
