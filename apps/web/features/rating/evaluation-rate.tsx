"use client";

import type { Comparison, Rating } from "@rubricon/contracts";
import { useMutation, useQueries, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { errorCode, errorMessage } from "@/lib/errors";
import { plural } from "@/lib/format";
import { useTRPC } from "@/lib/trpc";
import { FormError, Loading, PageHeader } from "@/ui";
import { RatingFlow } from "./rating-flow";
import { type RatingBody, type SubmitResult, toRatingTemplate } from "./types";

/** Every page of a cursor-paginated list; rating screens need all comparisons, not the first hundred. */
async function allPages<T extends { id: string }>(
  fetchPage: (
    startingAfter: string | undefined,
  ) => Promise<{ data: T[]; has_more: boolean; next_cursor?: string }>,
): Promise<T[]> {
  const out: T[] = [];
  let cursor: string | undefined;
  for (;;) {
    const page = await fetchPage(cursor);
    out.push(...page.data);
    if (!page.has_more || !page.next_cursor) return out;
    cursor = page.next_cursor;
  }
}

/** A team member rates the evaluation as themselves, with the same screens public raters see. */
export function EvaluationRate({ id }: { id: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const whoami = useQuery(trpc.auth.whoami.queryOptions({}));
  const evaluation = useQuery(trpc.evaluations.get.queryOptions({ id }));
  const running = evaluation.data?.status === "Running";

  const comparisons = useQuery({
    queryKey: ["rate", id, "comparisons"],
    enabled: running,
    queryFn: () =>
      allPages<Comparison>((cursor) =>
        queryClient.fetchQuery(
          trpc.evaluations.comparisons.list.queryOptions({ id, limit: 100, starting_after: cursor }),
        ),
      ),
  });
  const userId = whoami.data?.userId;
  const mine = useQuery({
    queryKey: ["rate", id, "mine", userId],
    enabled: running && Boolean(userId),
    // The flow tracks progress itself once mounted; a later visit to this page must not reuse an old list.
    gcTime: 0,
    refetchOnWindowFocus: false,
    queryFn: async () => {
      const ratings = await allPages<Rating>((cursor) =>
        queryClient.fetchQuery(
          trpc.ratings.list.queryOptions({ id, raterType: "user", limit: 100, starting_after: cursor }),
        ),
      );
      return ratings.filter((r) => r.userId === userId).map((r) => r.comparisonId);
    },
  });
  const templates = useQueries({
    queries: (running ? (evaluation.data?.selectedDimensionIds ?? []) : []).map((templateId) =>
      trpc.templates.get.queryOptions({ id: templateId }),
    ),
  });

  const create = useMutation(trpc.ratings.create.mutationOptions());

  async function submit(body: RatingBody): Promise<SubmitResult> {
    try {
      await create.mutateAsync({ id, ...body });
      await queryClient.invalidateQueries(trpc.results.pathFilter());
      return { ok: true };
    } catch (error) {
      return { ok: false, code: errorCode(error), message: errorMessage(error) };
    }
  }

  if (evaluation.isPending) return <Loading>Loading evaluation…</Loading>;
  if (evaluation.isError) {
    return (
      <div className="stack">
        <FormError error={evaluation.error} />
        <Link href="/evaluations">Back to evaluations</Link>
      </div>
    );
  }

  const e = evaluation.data;
  const header = (
    <PageHeader
      breadcrumb={
        <>
          <Link href="/evaluations">Evaluations</Link>
          <span aria-hidden="true">/</span>
          <Link href={`/evaluations/${id}`}>{e.name}</Link>
          <span aria-hidden="true">/</span>
        </>
      }
      title="Rate"
      description={
        <>
          {e.type === "SSE" ? "Score each design" : "Compare version A with version B"} — your ratings count
          as a team member’s{whoami.data ? ` (${whoami.data.email})` : ""}.
        </>
      }
      actions={
        <Link href={`/evaluations/${id}/results`} className="button">
          Results
        </Link>
      }
    />
  );

  if (!running) {
    return (
      <>
        {header}
        <div className="empty">
          <h2>{e.status === "Draft" ? "Not started yet" : "No longer taking ratings"}</h2>
          <p className="muted">
            {e.status === "Draft"
              ? "Move the evaluation to Running to start collecting ratings."
              : `This evaluation is ${e.status.toLowerCase()}; its ratings are final.`}
          </p>
          <Link href={`/evaluations/${id}`} className="button">
            Back to the evaluation
          </Link>
        </div>
      </>
    );
  }

  const loadError = [comparisons, mine, ...templates].find((q) => q.isError)?.error;
  const loaded = comparisons.data && mine.data && templates.every((q) => q.data);

  return (
    <>
      {header}
      {loadError ? (
        <FormError error={loadError} />
      ) : !loaded ? (
        <Loading>Loading comparisons…</Loading>
      ) : (
        <div className="rate-layout">
          <RatingFlow
            kind={e.type}
            comparisons={comparisons.data}
            templates={templates.flatMap((q) => (q.data ? [toRatingTemplate(q.data, e.type)] : []))}
            ratedIds={mine.data}
            submit={submit}
            finished={({ total, rated, skipped }) => (
              <div className="empty">
                <span className="done-mark" aria-hidden="true">
                  ✓
                </span>
                <h2>All done</h2>
                <p className="muted">
                  {rated + skipped === 0
                    ? `You have rated all ${plural(total, "comparison")}.`
                    : `You rated ${plural(rated, "comparison")}${skipped ? ` and skipped ${skipped}` : ""}.`}
                </p>
                <Link href={`/evaluations/${id}/results`} className="button button-primary">
                  See results
                </Link>
              </div>
            )}
          />
        </div>
      )}
    </>
  );
}
