"use client";

import type { Autouser } from "@rubricon/contracts";
import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useRouter } from "next/navigation";
import type { ReactNode } from "react";
import { useAutouserActions } from "@/components/autouser-actions";
import { AutouserForm } from "@/components/autouser-form";
import { AutouserRubrics } from "@/components/autouser-rubrics";
import { errorMessage } from "@/lib/errors";
import { useTRPC } from "@/lib/trpc";

function Header({ title, meta, children }: { title: string; meta?: ReactNode; children?: ReactNode }) {
  return (
    <div className="page-header">
      <div>
        <nav aria-label="Breadcrumb" className="breadcrumb">
          <Link href="/autousers">Autousers</Link>
          <span aria-hidden="true">/</span>
        </nav>
        <h1>{title}</h1>
        {meta && <div className="header-meta">{meta}</div>}
      </div>
      {children && <div className="button-row">{children}</div>}
    </div>
  );
}

export function AutouserCreate() {
  const trpc = useTRPC();
  const whoami = useQuery(trpc.auth.whoami.queryOptions({}));
  const teamId = whoami.data?.teamId;

  return (
    <>
      <Header title="New autouser" />
      {whoami.isPending && <p className="muted">Loading…</p>}
      {whoami.data && !teamId && (
        <p className="alert alert-error" role="alert">
          You are not a member of a team, so there is nowhere to save an autouser.
        </p>
      )}
      {teamId && (
        <div className="form-card">
          <AutouserForm mode={{ kind: "create", teamId }} />
        </div>
      )}
    </>
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

  if (autouser.isPending) return <p className="muted">Loading autouser…</p>;
  if (autouser.isError) {
    return (
      <div className="stack">
        <p className="alert alert-error" role="alert">
          {errorMessage(autouser.error)}
        </p>
        <Link href="/autousers">Back to autousers</Link>
      </div>
    );
  }

  const a = autouser.data;
  return (
    <>
      <Header
        title={a.name}
        meta={
          <>
            {a.isSystem && <span className="badge badge-system">System</span>}
            <span className="chip">{a.status === "published" ? "Published" : "Draft"}</span>
            <span className="chip">{a.visibility === "public" ? "Public" : "Private"}</span>
            <span className="muted small">{CALIBRATION_LABELS[a.calibrationStatus]}</span>
          </>
        }
      >
        {!a.isSystem && (
          <Link href={`/autousers/${a.id}/calibration`} className="button">
            Calibration
          </Link>
        )}
        <button
          type="button"
          className="button"
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
      </Header>

      {actions.error && (
        <p className="alert alert-error" role="alert">
          {actions.error}
        </p>
      )}
      {a.isSystem && (
        <p className="alert alert-info" role="note">
          This is a system autouser and is read-only. Duplicate it to make a copy your team can edit.
        </p>
      )}

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
