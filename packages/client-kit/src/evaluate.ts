import { type Connection, connect } from "./client";

export type EvaluationKind = "SSE" | "SxS";

export interface Choice {
  id: string;
  name: string;
}

/**
 * The templates the team can pick: the default `overall` first, then the other system templates, then the
 * team's own, those written for this kind of evaluation before the rest.
 */
export async function listTemplates(
  conn: Connection,
  kind: EvaluationKind,
  teamId?: string,
): Promise<Choice[]> {
  const api = connect(conn);
  const all = await api.templates.list({ limit: 100, ...(teamId ? { teamId } : {}) }).toArray({ limit: 200 });
  const suffix = kind === "SSE" ? "_SSE" : "_SXS";
  const rank = (t: (typeof all)[number]) =>
    (t.id === "overall" ? 0 : 4) + (t.isSystem ? 0 : 2) + (t.type.endsWith(suffix) ? 0 : 1);
  return all
    .sort((a, b) => rank(a) - rank(b) || a.name.localeCompare(b.name))
    .map((t) => ({ id: t.id, name: t.name }));
}

/** The personas the team may run: the system ones and the team's own it can see. */
export async function listAutousers(conn: Connection): Promise<Choice[]> {
  const api = connect(conn);
  const all = await api.autousers.list({ limit: 100 }).toArray({ limit: 200 });
  return all.map((a) => ({ id: a.id, name: a.name }));
}

/** One stimulus: an uploaded image or a web page. */
export type Stimulus = { fileId: string; label?: string } | { url: string; label?: string };

export interface NewEvaluation {
  teamId: string;
  name: string;
  kind: EvaluationKind;
  /** SSE: one comparison each. SxS: taken two by two, side A then side B. */
  stimuli: Stimulus[];
  templateId: string;
  /** Autousers selected for the evaluation; they run at once when it is created Running. */
  autouserIds?: string[];
  /** Running opens the evaluation to raters at once; Draft keeps it editable. */
  status: "Draft" | "Running";
}

export interface CreatedEvaluation {
  id: string;
  name: string;
  status: string;
  /** The dashboard page of the evaluation. */
  editUrl: string;
  /** The results page. */
  resultsUrl: string;
  comparisonIds: string[];
  runIds: string[];
}

function designUrl(s: Stimulus) {
  return "fileId" in s
    ? {
        fileId: s.fileId,
        stimulusType: "IMAGE" as const,
        ...(s.label ? { label: s.label.slice(0, 200) } : {}),
      }
    : { url: s.url, stimulusType: "URL" as const, ...(s.label ? { label: s.label.slice(0, 200) } : {}) };
}

function pair(a: Stimulus, b: Stimulus) {
  return {
    ...("fileId" in a ? { sideAFileId: a.fileId } : { currentUrl: a.url }),
    ...("fileId" in b ? { sideBFileId: b.fileId } : { variantUrl: b.url }),
    ...(a.label && b.label ? { label: `${a.label} vs ${b.label}`.slice(0, 200) } : {}),
  };
}

/** Creates the evaluation with its comparisons, then queues the chosen autousers. */
export async function createEvaluation(conn: Connection, input: NewEvaluation): Promise<CreatedEvaluation> {
  const api = connect(conn);
  if (input.kind === "SxS" && (input.stimuli.length < 2 || input.stimuli.length % 2 !== 0)) {
    throw new RangeError("A side-by-side evaluation needs designs in pairs: select two frames.");
  }
  const pairs = [];
  for (let i = 0; i + 1 < input.stimuli.length; i += 2)
    pairs.push(pair(input.stimuli[i]!, input.stimuli[i + 1]!));
  const autouserIds = input.autouserIds ?? [];
  const created = await api.evaluations.create({
    teamId: input.teamId,
    name: input.name.slice(0, 200),
    type: input.kind,
    status: input.status,
    selectedDimensionIds: [input.templateId],
    ...(input.kind === "SSE" ? { designUrls: input.stimuli.map(designUrl) } : { comparisonPairs: pairs }),
    ...(autouserIds.length
      ? {
          evaluationMethod: "both" as const,
          selectedAutousers: autouserIds.map((autouserId) => ({ autouserId })),
        }
      : {}),
  });
  if (!("id" in created)) throw new Error("The server answered a price quote instead of an evaluation.");
  const comparisons = await api.evaluations.comparisons.list(created.id, { limit: 100 });
  // A Running evaluation with selected autousers queues their runs itself; a Draft keeps them for when it starts.
  let runIds: string[] = [];
  if (autouserIds.length && created.status === "Running") {
    const runs = await api.evaluations.autouserRuns.list(created.id, { limit: 100 });
    runIds = runs.data.map((r) => r.id);
    if (runIds.length === 0) runIds = await startAutousers(conn, created.id, autouserIds);
  }
  return {
    id: created.id,
    name: created.name,
    status: created.status,
    editUrl: created.links.edit,
    resultsUrl: created.links.results,
    comparisonIds: comparisons.data.map((c) => c.id),
    runIds,
  };
}

/** Queues one run per autouser over every comparison; answers the run ids. */
export async function startAutousers(
  conn: Connection,
  evaluationId: string,
  autouserIds: string[],
): Promise<string[]> {
  const res = await connect(conn).evaluations.runAutousers.create(evaluationId, { autouserIds });
  return res.data.runs.map((r) => r.id);
}

/** Adds one stimulus to an existing Draft evaluation (SSE). */
export async function addComparison(
  conn: Connection,
  evaluationId: string,
  stimulus: Stimulus,
): Promise<string> {
  const body =
    "fileId" in stimulus
      ? { fileId: stimulus.fileId, stimulusType: "IMAGE" as const }
      : { url: stimulus.url, stimulusType: "URL" as const };
  const created = await connect(conn).evaluations.comparisons.create(evaluationId, {
    ...body,
    ...(stimulus.label ? { name: stimulus.label.slice(0, 200) } : {}),
  });
  return created.id;
}

export interface DraftSummary {
  id: string;
  name: string;
  type: EvaluationKind;
}

/** The team's Draft evaluations, newest first: where "add to an existing evaluation" can add. */
export async function listDrafts(conn: Connection): Promise<DraftSummary[]> {
  const page = await connect(conn).evaluations.list({ status: "Draft", limit: 50 });
  return page.data.map((e) => ({ id: e.id, name: e.name, type: e.type }));
}

export interface Progress {
  /** 0 to 1. */
  progress: number;
  ratingsCreated: number;
  plannedRatings: number;
  running: number;
  queued: number;
  completed: number;
  failed: number;
  /** True once no run is queued or running. */
  done: boolean;
  /** Mean score per template (SSE) or mean preference (SxS, negative favours A), once ratings exist. */
  scores: { name: string; value: number | null; scale: string; n: number }[];
}

/** Where the autousers stand and what they scored so far. */
export async function progressOf(conn: Connection, evaluationId: string): Promise<Progress> {
  const api = connect(conn);
  const [status, results] = await Promise.all([
    api.evaluations.autouserStatus(evaluationId),
    api.evaluations.results(evaluationId),
  ]);
  const s = status.summary;
  return {
    progress: status.progress,
    ratingsCreated: status.ratingsCreated,
    plannedRatings: status.plannedRatings,
    running: s.running,
    queued: s.queued,
    completed: s.completed,
    failed: s.failed,
    done: s.total > 0 && s.queued === 0 && s.running === 0,
    scores: results.dimensions.map((d) =>
      d.kind === "sse"
        ? { name: d.name, value: d.mean, scale: `${d.scaleMin}–${d.scaleMax}`, n: d.n }
        : { name: d.name, value: d.meanPreference, scale: "A −3 … +3 B", n: d.n },
    ),
  };
}
