"use client";

import type { Template } from "@rubricon/contracts";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { CatalogBreadcrumb, CatalogCreatePage, CatalogDetailActions, SystemNote } from "@/features/catalog";
import { formatDateTime } from "@/lib/format";
import { formatScale } from "@/lib/templates";
import { useTRPC } from "@/lib/trpc";
import { Badge, FormError, PageHeader, QueryState } from "@/ui";
import { useTemplateActions } from "./template-actions";
import { TemplateForm } from "./template-form";

export function TemplateCreate() {
  return (
    <CatalogCreatePage
      noun="template"
      path="/templates"
      label="Templates"
      form={(teamId) => <TemplateForm mode={{ kind: "create", teamId }} />}
    />
  );
}

export function TemplateDetail({ id }: { id: string }) {
  const trpc = useTRPC();
  const router = useRouter();
  const template = useQuery(trpc.templates.get.queryOptions({ id }));
  const actions = useTemplateActions({ afterDelete: () => router.push("/templates") });

  if (template.isPending || template.isError) {
    return (
      <div className="stack">
        <QueryState query={template} loading="Loading template…">
          {() => null}
        </QueryState>
        {template.isError && <Link href="/templates">Back to templates</Link>}
      </div>
    );
  }

  const t = template.data;
  return (
    <>
      <PageHeader
        breadcrumb={<CatalogBreadcrumb path="/templates" label="Templates" />}
        title={t.name}
        meta={
          <>
            {t.isSystem && <Badge tone="system">System</Badge>}
            <span className="type-tag">{t.type}</span>
            <span className="muted small" data-testid="template-version">
              Version {t.version}
            </span>
            <span className="muted small">{formatScale(t)}</span>
          </>
        }
        actions={<CatalogDetailActions row={t} actions={actions} />}
      />

      <FormError error={actions.error} />
      <SystemNote row={t} noun="template" />

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
      <FormError error={revert.error} />
      <QueryState query={versions} loading="Loading history…">
        {(page) => (
          <ol className="version-list">
            {page.data.map((v) => {
              const current = v.version === template.version;
              return (
                <li key={v.id} className="version" aria-label={`Version ${v.version}`}>
                  <div className="version-head">
                    <strong>Version {v.version}</strong>
                    <span className="chip">{CHANGE_LABELS[v.changeType]}</span>
                    {current && <Badge tone="success">Current</Badge>}
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
      </QueryState>
    </section>
  );
}
