import type { Rubricon } from "@rubricon/sdk";
import type { Command } from "commander";
import { action, show } from "../command-kit";
import { UsageError } from "../errors";
import { line } from "../output";

type Loose = Record<string, (...args: unknown[]) => Promise<unknown>>;

async function throwaway(client: Rubricon, status: "Draft" | "Running"): Promise<{ id: string }> {
  return (await (client.evaluations as unknown as Loose).create!({
    name: "Triggered from the CLI",
    description: "A throwaway evaluation made by `rubricon trigger`; it is deleted once its event fired.",
    type: "SSE",
    status,
    designUrls: [{ url: "https://example.com/", label: "Example" }],
  })) as { id: string };
}

/** What each event type needs done to fire; each returns the ids of what it made. */
const TRIGGERS: Record<string, (client: Rubricon) => Promise<Record<string, string>>> = {
  "evaluation.created": async (client) => ({ evaluation: (await throwaway(client, "Draft")).id }),
  "evaluation.status_changed": async (client) => {
    const { id } = await throwaway(client, "Draft");
    await (client.evaluations as unknown as Loose).update!(id, { status: "Running" });
    return { evaluation: id };
  },
  "evaluation.completed": async (client) => {
    const { id } = await throwaway(client, "Running");
    await (client.evaluations as unknown as Loose).update!(id, { status: "Ended" });
    return { evaluation: id };
  },
  "rating.created": async (client) => {
    const { id } = await throwaway(client, "Running");
    const comparisons = (await client.evaluations.comparisons.list(id, { limit: 1 })) as {
      data: { id: string }[];
    };
    const rating = (await (client.evaluations.ratings as unknown as Loose).create!(id, {
      comparisonId: comparisons.data[0]!.id,
      dimensionRatings: { overall: 4 },
      justification: "Made by `rubricon trigger`.",
    })) as { id: string };
    return { evaluation: id, rating: rating.id };
  },
};

export const TRIGGERABLE = Object.keys(TRIGGERS);

export function registerTrigger(program: Command): void {
  program
    .command("trigger <event-type>")
    .description(
      `Make something that fires an event, to test a receiver, then delete it again: ${TRIGGERABLE.join(", ")}`,
    )
    .option("--keep", "keep the evaluation it made instead of deleting it once the event fired")
    .action(
      action(async (inv) => {
        const type = inv.args[0]!;
        const make = TRIGGERS[type];
        if (!make) {
          const hint =
            type.startsWith("autouser_run.") || type === "calibration.frozen"
              ? " Autouser runs fire theirs: `rubricon runs start`."
              : "";
          throw new UsageError(`Cannot trigger "${type}". Triggerable: ${TRIGGERABLE.join(", ")}.${hint}`);
        }
        const { client } = await inv.api();
        const made = await make(client);
        // The event is in the team's log once the call that fired it answered, and deleting its evaluation
        // fires no event: the throwaway leaves nothing in the team's list but the events it was made for.
        const keep = Boolean(inv.opts.keep);
        if (!keep) await (client.evaluations as unknown as Loose).del!(made.evaluation);
        show({ object: "trigger", type, created: made, deleted: !keep }, inv.opts, () =>
          line(
            `Triggered ${type}: ${Object.entries(made)
              .map(([k, v]) => `${k} ${v}`)
              .join(", ")}${keep ? " (kept)" : "; its evaluation was deleted again (--keep keeps it)"}.`,
          ),
        );
      }),
    );
}
