import { timedPhase } from "../observability/phases";
import type {
  ActionOutcome,
  AgentAction,
  AgentPage,
  Judge,
  JudgeResult,
  JudgeTemplate,
  PageCapture,
  Persona,
  TokenUsage,
} from "../types";

/** What the agent did at one step, for the run's turn log. */
export interface TurnRecord {
  side: "A" | "B" | null;
  action: { type: "visit"; url: string } | AgentAction | { type: "rate" };
  detail: string;
  url: string | null;
  /** PNG of the page after the step, when one was taken. */
  screenshot: Uint8Array | null;
  usage: TokenUsage;
  latencyMs: number;
}

export interface PlannerInput {
  persona: Persona;
  instructions: string | null;
  scenario: string | null;
  capture: PageCapture;
  /** What the agent did on this page so far, oldest first. */
  history: string[];
  turnsLeft: number;
}

/** Chooses the agent's next step on a page; the LLM planner asks a model, none means "look, then rate". */
export interface ActionPlanner {
  next(
    input: PlannerInput,
    options: { signal?: AbortSignal },
  ): Promise<{ action: AgentAction; usage: TokenUsage }>;
}

export type ComparisonTask = { type: "SSE"; url: string } | { type: "SxS"; urlA: string; urlB: string };

export interface RunComparisonOptions {
  page: AgentPage;
  judge: Judge;
  planner: ActionPlanner | null;
  persona: Persona;
  instructions: string | null;
  scenario: string | null;
  templates: JudgeTemplate[];
  task: ComparisonTask;
  /** Actions per page at most (the planner may finish earlier with `done`). */
  maxActions?: number;
  signal?: AbortSignal;
  /** Awaited after every step, so the caller can record it (and stop the run) before the next one. */
  onTurn(turn: TurnRecord): Promise<void>;
}

export const DEFAULT_MAX_ACTIONS = 4;
const NO_USAGE: TokenUsage = { inputTokens: 0, outputTokens: 0, costUsd: 0 };

function throwIfAborted(signal?: AbortSignal) {
  if (signal?.aborted)
    throw signal.reason instanceof Error ? signal.reason : new Error("The run was stopped.");
}

/** Visits one side, takes the planner's bounded actions on it, and answers what the page looks like at the end. */
async function explore(
  opts: RunComparisonOptions,
  side: "A" | "B" | null,
  url: string,
): Promise<PageCapture> {
  throwIfAborted(opts.signal);
  let started = performance.now();
  let capture = await opts.page.visit(url);
  await opts.onTurn({
    side,
    action: { type: "visit", url },
    detail: `opened ${capture.finalUrl} (${capture.title || "untitled"})`,
    url: capture.finalUrl,
    screenshot: capture.screenshot,
    usage: NO_USAGE,
    latencyMs: Math.round(performance.now() - started),
  });
  if (!opts.planner) return capture;
  const history: string[] = [];
  const max = opts.maxActions ?? DEFAULT_MAX_ACTIONS;
  for (let i = 0; i < max; i++) {
    throwIfAborted(opts.signal);
    started = performance.now();
    const { action, usage } = await opts.planner.next(
      {
        persona: opts.persona,
        instructions: opts.instructions,
        scenario: opts.scenario,
        capture,
        history,
        turnsLeft: max - i,
      },
      { signal: opts.signal },
    );
    let outcome: ActionOutcome = {
      ok: true,
      detail: action.type === "done" ? (action.reason ?? "done") : "",
      urlAfter: capture.finalUrl,
    };
    if (action.type !== "done") {
      outcome = await opts.page.act(action);
      capture = await opts.page.capture();
    }
    history.push(outcome.detail);
    await opts.onTurn({
      side,
      action,
      detail: outcome.detail,
      url: outcome.urlAfter,
      screenshot: action.type === "done" ? null : capture.screenshot,
      usage,
      latencyMs: Math.round(performance.now() - started),
    });
    if (action.type === "done") break;
  }
  return capture;
}

/**
 * One comparison as a person would do it: open the design (both sides of a side-by-side), look around as the
 * scenario asks, then rate. Every step is reported through `onTurn` before the next begins.
 */
export async function runComparison(opts: RunComparisonOptions): Promise<JudgeResult> {
  const base = {
    persona: opts.persona,
    instructions: opts.instructions,
    scenario: opts.scenario,
    templates: opts.templates,
  };
  let input: Parameters<Judge["rate"]>[0];
  if (opts.task.type === "SSE") {
    const capture = await explore(opts, null, opts.task.url);
    input = { ...base, task: { type: "SSE", capture } };
  } else {
    const sideA = await explore(opts, "A", opts.task.urlA);
    const sideB = await explore(opts, "B", opts.task.urlB);
    input = { ...base, task: { type: "SxS", sideA, sideB } };
  }
  throwIfAborted(opts.signal);
  const started = performance.now();
  const result = await timedPhase("judge", () => opts.judge.rate(input, { signal: opts.signal }));
  await opts.onTurn({
    side: null,
    action: { type: "rate" },
    detail: `rated ${Object.entries(result.ratings)
      .map(([k, v]) => `${k}=${v}`)
      .join(", ")} (${result.model})`,
    url: null,
    screenshot: null,
    usage: result.usage,
    latencyMs: Math.round(performance.now() - started),
  });
  return result;
}
