"use client";

import type { AutouserRun, AutouserStatus } from "@rubricon/contracts";
import { AutouserStatus as AutouserStatusSchema } from "@rubricon/contracts";
import { useEffect, useState } from "react";
import { apiRequest, subscribeEvents } from "@/lib/api";

export interface StartRunsInput {
  autouserIds: string[];
  agentCount: number;
  comparisonIds?: string[];
}

/**
 * Queues runs over REST rather than tRPC so the request carries an Idempotency-Key: a double click or a retry
 * after a lost answer replays the first batch instead of queuing a second one.
 */
export async function startAutouserRuns(
  evaluationId: string,
  input: StartRunsInput,
  idempotencyKey: string,
): Promise<AutouserRun[]> {
  const body = await apiRequest<{ data: { runs: AutouserRun[] } }>(
    `/api/v1/evaluations/${encodeURIComponent(evaluationId)}/run-autousers`,
    { method: "POST", headers: { "Idempotency-Key": idempotencyKey }, body: input },
  );
  return body.data.runs;
}

const RUN_EVENTS = ["queued", "started", "completed", "failed", "cancelled"] as const;

/** Folds one run into the status, recounting from the runs so the figures never drift from what is shown. */
export function withRun(status: AutouserStatus, run: AutouserRun): AutouserStatus {
  const runs = status.runs.some((r) => r.id === run.id)
    ? status.runs.map((r) => (r.id === run.id ? run : r))
    : [run, ...status.runs];
  return recount({ ...status, runs });
}

function withRating(status: AutouserStatus, runId: string): AutouserStatus {
  const runs = status.runs.map((r) => (r.id === runId ? { ...r, ratingsCreated: r.ratingsCreated + 1 } : r));
  return recount({ ...status, runs });
}

function recount(status: AutouserStatus): AutouserStatus {
  const summary = { total: 0, queued: 0, running: 0, completed: 0, failed: 0, cancelled: 0 };
  let planned = 0;
  let made = 0;
  for (const r of status.runs) {
    summary.total += 1;
    summary[r.status] += 1;
    made += r.ratingsCreated;
    planned += r.status === "failed" || r.status === "cancelled" ? r.ratingsCreated : r.plannedRatings;
  }
  return {
    ...status,
    summary,
    ratingsCreated: made,
    plannedRatings: planned,
    progress: planned === 0 ? 0 : Math.min(1, made / planned),
  };
}

export type StreamState = "connecting" | "live" | "done" | "error";

/**
 * While no run is active, the page asks whether runs were started elsewhere (the API, another tab): every 5 s for
 * the first minute after the last run ended, then less and less often, down to once a minute, so a page left open
 * goes quiet instead of polling at the same pace for ever.
 */
export const IDLE_STATUS_POLL_MS = 5_000;
export const IDLE_STATUS_POLL_MAX_MS = 60_000;
const IDLE_STATUS_POLL_STEADY_MS = 60_000;

/**
 * The evaluation's autouser progress, live: the stream's `snapshot` and `done` replace the status, each run
 * event folds into it. EventSource reconnects by itself and sends Last-Event-ID, so the server resumes after
 * the last event seen. `done` ends the stream; it opens again for a new `generation` (runs were started here),
 * or when a cheap status check finds runs that were started elsewhere.
 */
export function useAutouserStream(evaluationId: string, generation: number) {
  const [status, setStatus] = useState<AutouserStatus | null>(null);
  const [state, setState] = useState<StreamState>("connecting");
  const [lastEvent, setLastEvent] = useState<{ name: string; runId: string | null } | null>(null);
  const [reopened, setReopened] = useState(0);

  useEffect(() => {
    if (state !== "done") return;
    let cancelled = false;
    const check = async () => {
      if (document.visibilityState === "hidden") return;
      const body = await apiRequest<unknown>(
        `/api/v1/evaluations/${encodeURIComponent(evaluationId)}/autouser-status`,
      ).catch(() => null);
      if (body === null || cancelled) return;
      const parsed = AutouserStatusSchema.safeParse(body);
      if (!parsed.success || cancelled) return;
      if (parsed.data.summary.queued + parsed.data.summary.running > 0) setReopened((n) => n + 1);
      else setStatus(parsed.data);
    };
    const idleSince = Date.now();
    let delay = IDLE_STATUS_POLL_MS;
    let timer: ReturnType<typeof setTimeout>;
    const schedule = () => {
      timer = setTimeout(async () => {
        await check();
        if (cancelled) return;
        if (Date.now() - idleSince >= IDLE_STATUS_POLL_STEADY_MS)
          delay = Math.min(delay * 2, IDLE_STATUS_POLL_MAX_MS);
        schedule();
      }, delay);
    };
    schedule();
    return () => {
      cancelled = true;
      clearTimeout(timer);
    };
  }, [evaluationId, state]);

  // biome-ignore lint/correctness/useExhaustiveDependencies: `generation` and `reopened` are signals to reopen the stream.
  useEffect(() => {
    setState("connecting");
    let close = () => {};
    const whole = (data: unknown) => {
      const parsed = AutouserStatusSchema.safeParse(data);
      if (parsed.success) setStatus(parsed.data);
    };
    close = subscribeEvents(
      `/api/v1/evaluations/${encodeURIComponent(evaluationId)}/autouser-stream`,
      ["snapshot", "done", "rating", "turn", ...RUN_EVENTS],
      ({ event, data }) => {
        if (event === "snapshot") {
          setState("live");
          whole(data);
        } else if (event === "done") {
          whole(data);
          setState("done");
          close();
        } else if (event === "rating" || event === "turn") {
          const { runId } = data as { runId: string };
          setLastEvent({ name: event, runId });
          if (event === "rating") setStatus((s) => (s ? withRating(s, runId) : s));
        } else {
          setState("live");
          const { run } = data as { run: AutouserRun };
          setLastEvent({ name: event, runId: run.id });
          setStatus((s) => (s ? withRun(s, run) : s));
        }
      },
      (connection) => {
        if (connection === "closed") setState("error");
        else if (connection === "connecting") setState("connecting");
      },
    );
    return () => close();
  }, [evaluationId, generation, reopened]);

  return { status, state, lastEvent };
}
