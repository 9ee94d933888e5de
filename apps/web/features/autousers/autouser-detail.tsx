"use client";

import type { Autouser } from "@rubricon/contracts";
import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { CatalogBreadcrumb, CatalogCreatePage, CatalogDetailActions, SystemNote } from "@/features/catalog";
import { useTRPC } from "@/lib/trpc";
import { Badge, FormError, PageHeader, QueryState } from "@/ui";
import { useAutouserActions } from "./autouser-actions";
import { AutouserForm } from "./autouser-form";
import { AutouserRubrics } from "./autouser-rubrics";

export function AutouserCreate() {
  return (
    <CatalogCreatePage
      noun="autouser"
      path="/autousers"
      label="Autousers"
      form={(teamId) => <AutouserForm mode={{ kind: "create", teamId }} />}
    />
  );
}

const CALIBRATION_LABELS: Record<Autouser["calibrationStatus"], string> = {
  uncalibrated: "Not calibrated",
  calibrating: "Calibrating",
  calibrated: "Calibrated",
  frozen: "Frozen",
};

export function AutouserDetail({ id }: { id: string }) {
  const trpc = useTRPC();
  const router = useRouter();
  const autouser = useQuery(trpc.autousers.get.queryOptions({ id }));
  const actions = useAutouserActions({ afterDelete: () => router.push("/autousers") });

  if (autouser.isPending || autouser.isError) {
    return (
      <div className="stack">
        <QueryState query={autouser} loading="Loading autouser…">
          {() => null}
        </QueryState>
        {autouser.isError && <Link href="/autousers">Back to autousers</Link>}
      </div>
    );
  }

  const a = autouser.data;
  return (
    <>
      <PageHeader
        breadcrumb={<CatalogBreadcrumb path="/autousers" label="Autousers" />}
        title={a.name}
        meta={
          <>
            {a.isSystem && <Badge tone="system">System</Badge>}
            <span className="chip">{a.status === "published" ? "Published" : "Draft"}</span>
            <span className="chip">{a.visibility === "public" ? "Public" : "Private"}</span>
            <span className="muted small">{CALIBRATION_LABELS[a.calibrationStatus]}</span>
          </>
        }
        actions={
          <>
            {!a.isSystem && (
              <Link href={`/autousers/${a.id}/calibration`} className="button">
                Calibration
              </Link>
            )}
            <CatalogDetailActions row={a} actions={actions} />
          </>
        }
      />

      <FormError error={actions.error} />
      <SystemNote row={a} noun="autouser" />

      <div className="detail-grid">
        {/* Keyed by updatedAt: a save brings a new row, and the form starts again from it. */}
        <AutouserForm
          key={a.updatedAt}
          mode={a.isSystem ? { kind: "view", autouser: a } : { kind: "edit", autouser: a }}
        />
        <AutouserRubrics autouser={a} />
      </div>
    </>
  );
}
