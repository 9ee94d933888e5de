"use client";

import type { Template } from "@rubricon/contracts";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useRouter } from "next/navigation";
import type { ReactNode } from "react";
import { useTemplateActions } from "@/components/template-actions";
import { TemplateForm } from "@/components/template-form";
import { errorMessage } from "@/lib/errors";
import { formatDateTime } from "@/lib/format";
import { formatScale } from "@/lib/templates";
import { useTRPC } from "@/lib/trpc";

function Header({ title, meta, children }: { title: string; meta?: ReactNode; children?: ReactNode }) {
  return (
    <div className="page-header">
      <div>
        <nav aria-label="Breadcrumb" className="breadcrumb">
          <Link href="/templates">Templates</Link>
          <span aria-hidden="true">/</span>
        </nav>
        <h1>{title}</h1>
        {meta && <div className="header-meta">{meta}</div>}
      </div>
      {children && <div className="button-row">{children}</div>}
    </div>
  );
}

export function TemplateCreate() {
  const trpc = useTRPC();
  // The dashboard shell has already loaded whoami, so this reads the cache.
  const whoami = useQuery(trpc.auth.whoami.queryOptions({}));
  const teamId = whoami.data?.teamId;

  return (
    <>
      <Header title="New template" />
      {whoami.isPending && <p className="muted">Loading…</p>}
      {whoami.data && !teamId && (
        <p className="alert alert-error" role="alert">
          You are not a member of a team, so there is nowhere to save a template.
        </p>
      )}
      {teamId && (
        <div className="form-card">
          <TemplateForm mode={{ kind: "create", teamId }} />
        </div>
      )}
    </>
  );
}

export function TemplateDetail({ id }: { id: string }) {
  const trpc = useTRPC();
  const router = useRouter();
  const template = useQuery(trpc.templates.get.queryOptions({ id }));
  const actions = useTemplateActions({ afterDelete: () => router.push("/templates") });

  if (template.isPending) return <p className="muted">Loading template…</p>;
  if (template.isError) {
    return (
      <div className="stack">
        <p className="alert alert-error" role="alert">
          {errorMessage(template.error)}
        </p>
        <Link href="/templates">Back to templates</Link>
      </div>
    );
  }

  const t = template.data;
  return (
    <>
      <Header
        title={t.name}
        meta={
          <>
            {t.isSystem && <span className="badge badge-system">System</span>}
            <span className="type-tag">{t.type}</span>
            <span className="muted small" data-testid="template-version">
              Version {t.version}
            </span>
            <span className="muted small">{formatScale(t)}</span>
          </>
        }
      >
        <button
          type="button"
          className="button"
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
      </Header>

      {actions.error && (
        <p className="alert alert-error" role="alert">
          {actions.error}
        </p>
      )}
      {t.isSystem && (
        <p className="alert alert-info" role="note">
          This is a system template and is read-only. Duplicate it to make a copy your team can edit.
        </p>
      )}

      <div className="detail-grid">
        {/* Keyed by version: a save or revert brings a new version, and the form starts again from it. */}
        <TemplateForm
          key={t.version}
          mode={t.isSystem ? { kind: "view", template: t } : { kind: "edit", template: t }}
        />
        <VersionHistory template={t} />
      </div>
    </>
  );
}

const CHANGE_LABELS = { created: "Created", updated: "Updated", duplicated: "Duplicated" } as const;

function VersionHistory({ template }: { template: Template }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const versions = useQuery(trpc.templates.versions.queryOptions({ id: template.id, limit: 100 }));
  const revert = useMutation(
    trpc.templates.revert.mutationOptions({
      onSuccess: async (updated) => {
        queryClient.setQueryData(trpc.templates.get.queryKey({ id: updated.id }), updated);
        await Promise.all([
          queryClient.invalidateQueries(trpc.templates.versions.queryFilter({ id: updated.id })),
          queryClient.invalidateQueries(trpc.templates.list.pathFilter()),
        ]);
      },
    }),
  );

  return (
    <section className="card" aria-labelledby="history-heading">
      <h2 id="history-heading">Version history</h2>
      {versions.isPending && <p className="muted">Loading history…</p>}
      {versions.isError && (
        <p className="alert alert-error" role="alert">
          {errorMessage(versions.error)}
        </p>
      )}
      {revert.isError && (
        <p className="alert alert-error" role="alert">
          {errorMessage(revert.error)}
        </p>
      )}
      {versions.data && (
        <ol className="version-list">
          {versions.data.data.map((v) => {
            const current = v.version === template.version;
            return (
              <li key={v.id} className="version" aria-label={`Version ${v.version}`}>
                <div className="version-head">
                  <strong>Version {v.version}</strong>
                  <span className="chip">{CHANGE_LABELS[v.changeType]}</span>
                  {current && <span className="badge badge-running">Current</span>}
                </div>
                {v.changeSummary && <p className="version-summary">{v.changeSummary}</p>}
                <time className="muted small" dateTime={v.createdAt}>
                  {formatDateTime(v.createdAt)}
                </time>
                {!current && !template.isSystem && (
                  <div>
                    <button
                      type="button"
                      className="button"
                      disabled={revert.isPending}
                      onClick={() => revert.mutate({ id: template.id, versionId: v.id })}
                    >
                      Revert to this version
                    </button>
                  </div>
                )}
              </li>
            );
          })}
        </ol>
      )}
    </section>
  );
}
