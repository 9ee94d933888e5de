"use client";

import { type Comparison, EVALUATION_STATUS_TRANSITIONS, type EvaluationStatus } from "@rubricon/contracts";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useSearchParams } from "next/navigation";
import { useEffect, useState } from "react";
import { AutouserRunsPanel } from "@/features/autouser-runs/autouser-runs-panel";
import { RequestAccess } from "@/features/sharing/request-access";
import { ShareDialog } from "@/features/sharing/share-dialog";
import { errorCode, errorMessage } from "@/lib/errors";
import { formatDateTime, plural } from "@/lib/format";
import { SHARE_ACCESS_LABELS } from "@/lib/share-access";
import { useTRPC } from "@/lib/trpc";
import {
  ACTIONS_HEADER,
  CopyButton,
  DataTable,
  FormError,
  Loading,
  PageHeader,
  QueryState,
  useConfirm,
} from "@/ui";
import { EvaluationDraftForm } from "./evaluation-draft-form";
import { MoveToTeam } from "./move-to-team";
import { StatusBadge } from "./status-badge";

/** What the dashboard asks before a move; the moves offered are the contracts' transition table. */
const CONFIRM: Partial<Record<EvaluationStatus, string>> = {
  Ended: "End this evaluation? Raters will no longer be able to submit.",
  Archived: "Archive this evaluation? Archiving is final.",
};
const moveLabel = (to: EvaluationStatus) => (to === "Archived" ? "Archive" : `Move to ${to}`);

export function EvaluationDetail({ id }: { id: string }) {
  const trpc = useTRPC();
  const confirm = useConfirm();
  const queryClient = useQueryClient();
  const evaluation = useQuery(trpc.evaluations.get.queryOptions({ id }));
  const comparisons = useQuery(trpc.evaluations.comparisons.list.queryOptions({ id, limit: 100 }));
  const publicRaters = useQuery(trpc.ratings.publicRaters.queryOptions({ id, limit: 100 }));
  const [statusError, setStatusError] = useState<string | null>(null);
  const [shareError, setShareError] = useState<string | null>(null);
  // `links.edit` arrives with ?edit=1: a draft opens in its editor.
  const editRequested = useSearchParams().get("edit") !== null;
  const [editing, setEditing] = useState(editRequested);
  // `links.preview` arrives at #comparisons-heading, which exists only once the page has loaded.
  const loaded = Boolean(evaluation.data && comparisons.data);
  useEffect(() => {
    if (!loaded || !window.location.hash) return;
    document.getElementById(decodeURIComponent(window.location.hash.slice(1)))?.scrollIntoView();
  }, [loaded]);
  const rotate = useMutation(
    trpc.evaluations.rotateShareToken.mutationOptions({
      onSuccess: (updated) => {
        setShareError(null);
        queryClient.setQueryData(trpc.evaluations.get.queryKey({ id }), updated);
      },
      onError: (error) => setShareError(errorMessage(error)),
    }),
  );
  const exclude = useMutation(
    trpc.ratings.excludePublicRater.mutationOptions({
      onSuccess: async () => {
        setShareError(null);
        await queryClient.invalidateQueries(trpc.ratings.publicRaters.pathFilter());
      },
      onError: (error) => setShareError(errorMessage(error)),
    }),
  );

  const update = useMutation(
    trpc.evaluations.update.mutationOptions({
      onSuccess: async (updated) => {
        setStatusError(null);
        queryClient.setQueryData(trpc.evaluations.get.queryKey({ id }), updated);
        await queryClient.invalidateQueries(trpc.evaluations.list.pathFilter());
      },
      onError: (error) => setStatusError(errorMessage(error)),
    }),
  );

  if (evaluation.isPending) return <Loading>Loading evaluation…</Loading>;
  if (evaluation.isError) {
    return (
      <div className="stack">
        <FormError error={evaluation.error} />
        {errorCode(evaluation.error) === "evaluation_no_access" && <RequestAccess id={id} />}
        <Link href="/evaluations">Back to evaluations</Link>
      </div>
    );
  }

  const e = evaluation.data;
  const moves = EVALUATION_STATUS_TRANSITIONS[e.status];

  return (
    <>
      <PageHeader
        breadcrumb={
          <>
            <Link href="/evaluations">Evaluations</Link>
            <span aria-hidden="true">/</span>
          </>
        }
        title={e.name}
        meta={
          <>
            <StatusBadge status={e.status} />
            <span className="type-tag">{e.type}</span>
            <span className="muted small">{plural(e.comparisonCount, "comparison")}</span>
            {e.sharedWithYou && (
              <span className="chip" data-testid="shared-with-you">
                Shared with you · {e.sharedWithYou.permission.toLowerCase()}
              </span>
            )}
          </>
        }
        actions={
          <>
            <ShareDialog evaluation={e} />
            {e.status === "Draft" && e.sharedWithYou?.permission !== "VIEWER" && !editing && (
              <button
                type="button"
                className="button"
                onClick={() => setEditing(true)}
                disabled={!comparisons.data}
              >
                Edit draft
              </button>
            )}
            {e.status === "Running" && (
              <Link href={`/evaluations/${id}/rate`} className="button">
                Rate
              </Link>
            )}
            {e.status !== "Draft" && (
              <Link href={`/evaluations/${id}/results`} className="button">
                Results
              </Link>
            )}
            {moves.map((to) => (
              <button
                key={to}
                type="button"
                className={to === "Archived" ? "button" : "button button-primary"}
                disabled={update.isPending}
                onClick={async () => {
                  const message = CONFIRM[to];
                  if (message && !(await confirm({ message, confirmLabel: moveLabel(to) }))) return;
                  update.mutate({ id, status: to });
                }}
              >
                {moveLabel(to)}
              </button>
            ))}
          </>
        }
      />

      <FormError error={statusError} />
      {editRequested && e.status !== "Draft" && (
        <p className="alert alert-info" role="status" data-testid="edit-not-draft">
          Only a draft can be edited; this evaluation is {e.status}.
        </p>
      )}

      {editing && e.status === "Draft" && comparisons.data && (
        <EvaluationDraftForm
          evaluation={e}
          comparisons={comparisons.data.data}
          onDone={() => setEditing(false)}
        />
      )}

      <div className="detail-grid">
        <section className="card" aria-labelledby="details-heading">
          <h2 id="details-heading">Details</h2>
          <dl className="facts">
            <dt>Status</dt>
            <dd data-testid="evaluation-status">{e.status}</dd>
            <dt>Type</dt>
            <dd>{e.type === "SSE" ? "SSE — single design" : "SxS — side by side"}</dd>
            <dt>Description</dt>
            <dd>{e.description || <span className="muted">No description</span>}</dd>
            <dt>Method</dt>
            <dd className="capitalize">{e.evaluationMethod}</dd>
            <dt>Share access</dt>
            <dd>{SHARE_ACCESS_LABELS[e.shareAccess]}</dd>
            <dt>Rating window</dt>
            <dd data-testid="rating-window">
              {ratingWindow(e.ratingWindow.closesAt, e.ratingWindow.targetRatingsPerComparison)}
            </dd>
            <dt>Rater details</dt>
            <dd>{raterDetails(e.collectRaterName, e.collectRaterEmail)}</dd>
            {e.endedAt && (
              <>
                <dt>Ended</dt>
                <dd>{formatDateTime(e.endedAt)}</dd>
              </>
            )}
            <dt>Created</dt>
            <dd>{formatDateTime(e.createdAt)}</dd>
            <dt>Updated</dt>
            <dd>{formatDateTime(e.updatedAt)}</dd>
            <dt>ID</dt>
            <dd className="mono small">{e.id}</dd>
          </dl>
        </section>

        <section className="card" aria-labelledby="share-heading">
          <h2 id="share-heading">Share link</h2>
          <p className="muted small">
            {e.status === "Draft"
              ? "The review page opens once the evaluation is running."
              : `Access: ${SHARE_ACCESS_LABELS[e.shareAccess]}.`}
          </p>
          <div className="copy-box">
            <label htmlFor="share-link" className="visually-hidden">
              Share link
            </label>
            <input
              id="share-link"
              className="copy-value mono"
              readOnly
              value={e.links.share}
              onFocus={(event) => event.target.select()}
            />
            <CopyButton value={e.links.share} label="Copy share link" />
          </div>
          {e.status !== "Draft" && (
            <p className="small share-open">
              <a href={e.links.share} target="_blank" rel="noreferrer">
                Open the rating page ↗
              </a>
            </p>
          )}
          <div>
            <button
              type="button"
              className="button"
              disabled={rotate.isPending}
              onClick={async () => {
                const ok = await confirm({
                  message: "Make a new share link? The current link stops working at once.",
                  confirmLabel: "Make a new link",
                });
                if (ok) rotate.mutate({ id });
              }}
            >
              New share link
            </button>
          </div>
          <FormError error={shareError} />
        </section>
      </div>

      {(e.shareAccess === "ANYONE_WITH_LINK" ||
        e.shareAccess === "PASSWORD_PROTECTED" ||
        (publicRaters.data?.data.length ?? 0) > 0) && (
        <section className="card" aria-labelledby="public-raters-heading">
          <h2 id="public-raters-heading">Public raters</h2>
          <QueryState
            query={publicRaters}
            loading="Loading raters…"
            isEmpty={(page) => page.data.length === 0}
            empty={<p className="muted">Nobody has started rating through the share link yet.</p>}
          >
            {(page) => (
              <DataTable
                bare
                rows={page.data}
                rowKey={(r) => r.id}
                columns={[
                  { header: "Name", cell: (r) => r.name ?? <span className="muted">Not given</span> },
                  { header: "Email", cell: (r) => r.email ?? <span className="muted">Not given</span> },
                  { header: "Ratings", numeric: true, cell: (r) => r.ratingCount },
                  { header: "Started", cell: (r) => formatDateTime(r.createdAt) },
                  {
                    header: ACTIONS_HEADER,
                    cell: (r) =>
                      r.excluded ? (
                        <span className="muted">Excluded</span>
                      ) : (
                        <button
                          type="button"
                          className="button button-danger-ghost"
                          disabled={exclude.isPending}
                          aria-label={`Exclude ${r.name ?? r.email ?? "this rater"}`}
                          onClick={async () => {
                            const ok = await confirm({
                              message: "Exclude this rater? Their ratings leave the results.",
                              confirmLabel: "Exclude",
                              destructive: true,
                            });
                            if (ok) exclude.mutate({ id, raterId: r.id });
                          }}
                        >
                          Exclude
                        </button>
                      ),
                  },
                ]}
              />
            )}
          </QueryState>
        </section>
      )}

      {!e.sharedWithYou && <MoveToTeam evaluation={e} />}

      {e.status !== "Archived" && (
        <AutouserRunsPanel evaluation={e} comparisons={comparisons.data?.data ?? []} />
      )}

      <section className="card" aria-labelledby="comparisons-heading">
        <h2 id="comparisons-heading">Comparisons</h2>
        <QueryState
          query={comparisons}
          loading="Loading comparisons…"
          isEmpty={(page) => page.data.length === 0}
          empty={<p className="muted">This evaluation has no comparisons yet.</p>}
        >
          {(page) => (
            <ol className="comparison-list">
              {/* The API lists by last update; raters see them in position order, so show that. */}
              {[...page.data]
                .sort((a, b) => a.position - b.position)
                .map((c) => (
                  <ComparisonItem key={c.id} comparison={c} />
                ))}
            </ol>
          )}
        </QueryState>
      </section>
    </>
  );
}

function ratingWindow(deadline: string | null, target: number | null): string {
  const at = deadline ? formatDateTime(deadline) : null;
  const count = target ? `${plural(target, "human rating")} per comparison` : null;
  if (at && count) return `Closes ${at} or at ${count}, whichever comes first`;
  if (at) return `Closes ${at}`;
  if (count) return `Closes at ${count}`;
  return "Open until ended";
}

function raterDetails(name: boolean, email: boolean): string {
  if (name && email) return "Name and email asked";
  if (name) return "Name asked";
  if (email) return "Email asked";
  return "Not asked";
}

function Stimulus({ url, fileId }: { url: string | null; fileId: string | null }) {
  if (url) {
    return (
      <a href={url} target="_blank" rel="noreferrer noopener" className="mono">
        {url}
      </a>
    );
  }
  return <span className="mono muted">{fileId ? `File ${fileId}` : "—"}</span>;
}

function ComparisonItem({ comparison }: { comparison: Comparison }) {
  const s = comparison.stimulus;
  return (
    <li className="comparison">
      <span className="comparison-position">{comparison.position + 1}</span>
      <div className="comparison-body">
        {comparison.name && <strong>{comparison.name}</strong>}
        {s.kind === "single" ? (
          <Stimulus url={s.url} fileId={s.fileId} />
        ) : (
          <div className="pair">
            <span className="pair-side">A</span>
            <Stimulus url={s.sideA.url} fileId={s.sideA.fileId} />
            <span className="pair-side">B</span>
            <Stimulus url={s.sideB.url} fileId={s.sideB.fileId} />
          </div>
        )}
      </div>
    </li>
  );
}
