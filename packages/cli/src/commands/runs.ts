import type { Rubricon } from "@rubricon/sdk";
import type { Command } from "commander";
import { action, addListOptions, listQuery, show, showList } from "../command-kit";
import { UsageError } from "../errors";
import { collect, positiveInt } from "../input";
import { type Column, line, note, printTable } from "../output";

export interface Run {
  id: string;
  autouserId: string;
  agentIndex: number;
  status: string;
  plannedRatings: number;
  ratingsCreated: number;
  error?: string | null;
}

const RUN_COLUMNS: Column[] = [
  { header: "run", value: "id" },
  { header: "autouser", value: "autouserId" },
  { header: "agent", value: "agentIndex" },
  { header: "status", value: "status" },
  { header: "ratings", value: (r) => `${r.ratingsCreated}/${r.plannedRatings}` },
];

const FINAL = new Set(["completed", "failed", "cancelled"]);
const BAR_WIDTH = 24;

function bar(done: number, total: number): string {
  const share = total > 0 ? Math.min(1, done / total) : 0;
  const filled = Math.round(share * BAR_WIDTH);
  return `[${"#".repeat(filled)}${"-".repeat(BAR_WIDTH - filled)}] ${String(Math.round(share * 100)).padStart(3)}%`;
}

function who(run: Run): string {
  return `${run.autouserId}${run.agentIndex > 0 ? `#${run.agentIndex + 1}` : ""}`;
}

function count(run: Run): string {
  return `${run.ratingsCreated}/${run.plannedRatings}`;
}

/** One run's line; the widths are the widest name and count of all runs shown, so the bars line up. */
export function progressLine(run: Run, widths: { who: number; count: number }): string {
  const tail = run.status === "failed" && run.error ? `  ${run.error}` : "";
  return `${who(run).padEnd(widths.who)}  ${bar(run.ratingsCreated, run.plannedRatings)}  ${count(run).padStart(widths.count)} ${run.status}${tail}`;
}

export function progressWidths(runs: readonly Run[]): { who: number; count: number } {
  return {
    who: Math.max(0, ...runs.map((r) => who(r).length)),
    count: Math.max(0, ...runs.map((r) => count(r).length)),
  };
}

/**
 * Progress per run. On a terminal the lines are redrawn in place; elsewhere (CI logs, pipes) a line is printed
 * whenever a run's state or count changes.
 */
class Progress {
  readonly #runs = new Map<string, Run>();
  readonly #printed = new Map<string, string>();
  #drawn = 0;
  readonly #tty = Boolean(process.stdout.isTTY);

  update(run: Run): void {
    this.#runs.set(run.id, { ...this.#runs.get(run.id), ...run });
    this.#render();
  }

  rated(runId: string): void {
    const run = this.#runs.get(runId);
    if (!run) return;
    run.ratingsCreated += 1;
    this.#render();
  }

  get runs(): Run[] {
    return [...this.#runs.values()];
  }

  #render(): void {
    const widths = progressWidths([...this.#runs.values()]);
    if (this.#tty) {
      if (this.#drawn > 0) process.stdout.write(`\u001b[${this.#drawn}A`);
      for (const run of this.#runs.values()) process.stdout.write(`\u001b[2K${progressLine(run, widths)}\n`);
      this.#drawn = this.#runs.size;
      return;
    }
    for (const run of this.#runs.values()) {
      const text = progressLine(run, widths);
      if (this.#printed.get(run.id) !== text) {
        this.#printed.set(run.id, text);
        line(text);
      }
    }
  }
}

export function registerRuns(program: Command): void {
  const runs = program
    .command("runs")
    .description("Autouser runs: start them and follow them live, stop, list");

  runs
    .command("start <evaluation>")
    .description("Start autouser runs on an evaluation and follow them until they finish")
    .option(
      "-a, --autouser <id>",
      "an autouser to run; repeat for more (see `rubricon autousers list`)",
      collect,
    )
    .option("--agents <n>", "agents per autouser, each its own run", positiveInt("--agents"))
    .option("--comparison <id>", "only this comparison; repeat for more (default: all)", collect)
    .option("--no-wait", "return once the runs are queued")
    .action(
      action(async (inv) => {
        const autouserIds = inv.opts.autouser as string[] | undefined;
        if (!autouserIds?.length)
          throw new UsageError("Give at least one --autouser <id> (see `rubricon autousers list`).");
        const evaluationId = inv.args[0]!;
        const { client } = await inv.api();
        const batch = await client.evaluations.runAutousers.create(evaluationId, {
          autouserIds,
          ...(inv.opts.comparison ? { comparisonIds: inv.opts.comparison as string[] } : {}),
          ...(inv.opts.agents ? { agentCount: inv.opts.agents as number } : {}),
        });
        const started = batch.data.runs as Run[];
        if (inv.opts.wait === false) {
          show(batch, inv.opts, () => {
            printTable(started as unknown as Record<string, unknown>[], RUN_COLUMNS);
            note(`Follow with: rubricon runs watch ${evaluationId}`);
          });
          return;
        }
        if (!inv.opts.json)
          note(`Started ${started.length} run(s), ${batch.plannedRatings} ratings planned.`);
        const ours = new Set(started.map((r) => r.id));
        process.exitCode = await follow(client, evaluationId, inv.opts.json === true, ours, started);
      }),
    );

  runs
    .command("watch <evaluation>")
    .description("Follow an evaluation's autouser runs until none is queued or running")
    .action(
      action(async (inv) => {
        const { client } = await inv.api();
        process.exitCode = await follow(client, inv.args[0]!, inv.opts.json === true, undefined, []);
      }),
    );

  runs
    .command("stop <evaluation>")
    .description("Stop an evaluation's queued and running autouser runs (or only --run ones)")
    .option("--run <id>", "only this run; repeat for more", collect)
    .action(
      action(async (inv) => {
        const { client } = await inv.api();
        const runIds = inv.opts.run as string[] | undefined;
        const stopped = (await client.evaluations.stopAutousers.create(
          inv.args[0]!,
          runIds ? { runIds } : {},
        )) as {
          cancelled: string[];
        };
        show(stopped, inv.opts, () => line(`Stopped ${stopped.cancelled.length} run(s).`));
      }),
    );

  addListOptions(
    runs.command("list <evaluation>").alias("ls").description("List an evaluation's autouser runs"),
  ).action(
    action(async (inv) => {
      const { client } = await inv.api();
      await showList(
        client.evaluations.autouserRuns.list(inv.args[0]!, listQuery(inv.opts) as never) as never,
        inv.opts,
        RUN_COLUMNS,
      );
    }),
  );
}

type Client = Rubricon;

/**
 * Reads the evaluation's run stream to `done`, reconnecting with `Last-Event-ID` if the connection drops.
 * Answers the exit code: 0 when every run followed completed, 1 when one failed or was cancelled.
 */
async function follow(
  client: Client,
  evaluationId: string,
  json: boolean,
  only: Set<string> | undefined,
  initial: Run[],
): Promise<number> {
  const progress = new Progress();
  const mine = (run: Run) => !only || only.has(run.id);
  if (!json) for (const run of initial) progress.update(run);
  let lastEventId: string | undefined;
  let finalStatus: { runs: Run[] } | undefined;
  for (let attempt = 0; finalStatus === undefined; attempt++) {
    try {
      const stream = await client.evaluations.autouserStream(
        evaluationId,
        lastEventId ? { lastEventId } : {},
      );
      for await (const event of stream) {
        if (event.id) lastEventId = event.id;
        const data = JSON.parse(event.data) as Record<string, unknown>;
        if (json) process.stdout.write(`${JSON.stringify({ event: event.event, id: event.id, data })}\n`);
        if (event.event === "snapshot" || event.event === "done") {
          for (const run of (data.runs as Run[] | undefined) ?? [])
            if (mine(run) && !json) progress.update(run);
          if (event.event === "done") finalStatus = data as { runs: Run[] };
        } else if (event.event === "rating") {
          if (!json) progress.rated(String(data.runId));
        } else if (data.run && typeof data.run === "object") {
          const run = data.run as Run;
          if (mine(run) && !json) progress.update(run);
        }
      }
      attempt = 0;
    } catch (err) {
      // A dropped connection is resumed; an API refusal (no access, no such evaluation) is not.
      if ((err as { status?: number }).status !== undefined || attempt >= 5) throw err;
      await new Promise((r) => setTimeout(r, 500 * 2 ** attempt));
    }
  }
  const followed = finalStatus.runs.filter(mine);
  const bad = followed.filter((r) => r.status !== "completed" && FINAL.has(r.status));
  if (!json) {
    const made = followed.reduce((n, r) => n + r.ratingsCreated, 0);
    note(
      `Done: ${followed.length - bad.length} of ${followed.length} run(s) completed, ${made} rating(s) made.` +
        (bad.length ? ` ${bad.length} ${bad.length === 1 ? "run did" : "runs did"} not complete.` : ""),
    );
  } else process.stdout.write(`${JSON.stringify({ object: "autouser_runs_done", runs: followed })}\n`);
  return bad.length ? 1 : 0;
}
