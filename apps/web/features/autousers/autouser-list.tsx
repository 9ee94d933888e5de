"use client";

import type { AutouserListQuery } from "@rubricon/contracts";
import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useState } from "react";
import { CatalogName, CatalogRowActions, CatalogUpdated } from "@/features/catalog";
import { EXPERTISE_LABELS, formatDevice, NEED_LABELS } from "@/lib/autousers";
import { useTRPC } from "@/lib/trpc";
import { DataTable, Field, FieldRow, FormError, PageHeader, QueryState } from "@/ui";
import { useAutouserActions } from "./autouser-actions";

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

      <FieldRow legend="Filters">
        <Field id="filter-source" label="Source">
          {(props) => (
            <select
              {...props}
              value={filters.source ?? ""}
              onChange={(e) => filter("source", e.target.value)}
            >
              <option value="">System and team</option>
              <option value="system">System</option>
              <option value="team">Team</option>
            </select>
          )}
        </Field>
        <Field id="filter-status" label="Status">
          {(props) => (
            <select
              {...props}
              value={filters.status ?? ""}
              onChange={(e) => filter("status", e.target.value)}
            >
              <option value="">Any status</option>
              <option value="draft">Draft</option>
              <option value="published">Published</option>
            </select>
          )}
        </Field>
        <Field id="filter-visibility" label="Visibility">
          {(props) => (
            <select
              {...props}
              value={filters.visibility ?? ""}
              onChange={(e) => filter("visibility", e.target.value)}
            >
              <option value="">Any visibility</option>
              <option value="private">Private</option>
              <option value="public">Public</option>
            </select>
          )}
        </Field>
      </FieldRow>

      <FormError error={actions.error} />
      <QueryState
        query={list}
        loading="Loading autousers…"
        isEmpty={(page) => page.data.length === 0}
        empty={<p className="muted">No autousers match these filters.</p>}
      >
        {(page) => (
          <DataTable
            caption="Autousers"
            rows={page.data}
            rowKey={(a) => a.id}
            columns={[
              {
                header: "Name",
                cell: (a) => (
                  <>
                    <CatalogName row={a} path="/autousers" />
                    <span className="muted small">{a.role}</span>
                  </>
                ),
              },
              {
                header: "Persona",
                className: "small",
                cell: (a) => (
                  <>
                    {EXPERTISE_LABELS[a.expertise]}
                    {a.accessibilityNeeds.length > 0 &&
                      `; ${a.accessibilityNeeds.map((n) => NEED_LABELS[n]).join(", ")}`}
                  </>
                ),
              },
              { header: "Device", className: "nowrap small", cell: (a) => formatDevice(a.device) },
              {
                header: "Status",
                className: "nowrap",
                cell: (a) => (
                  <>
                    <span className="chip">{a.status === "published" ? "Published" : "Draft"}</span>{" "}
                    <span className="chip">{a.visibility === "public" ? "Public" : "Private"}</span>
                  </>
                ),
              },
              { header: "Updated", cell: (a) => <CatalogUpdated row={a} /> },
              {
                header: <span className="visually-hidden">Actions</span>,
                className: "actions nowrap",
                cell: (a) => <CatalogRowActions row={a} path="/autousers" actions={actions} />,
              },
            ]}
          />
        )}
      </QueryState>
      {list.data?.has_more && <p className="muted small">Showing the 100 most recently updated autousers.</p>}
    </>
  );
}
