import { writeFileSync } from "node:fs";
import type { Command } from "commander";
import {
  action,
  addBodyOptions,
  addListOptions,
  bodyFrom,
  type Invocation,
  listQuery,
  show,
  showList,
} from "../command-kit";
import { UsageError } from "../errors";
import { collect, commaList } from "../input";
import { type Column, line, printRecord, renderTable } from "../output";
import { registerResults } from "./results";

// Loose views of the SDK's typed resources: the CLI passes bodies read from files and flags, which the API
// validates, so the compile-time body types would only be cast away at every call.
const loose = (resource: unknown) => resource as Record<string, (...args: unknown[]) => Promise<unknown>>;

const EVALUATION_COLUMNS: Column[] = [
  { header: "id", value: "id" },
  { header: "name", value: "name" },
  { header: "type", value: "type" },
  { header: "status", value: "status" },
  { header: "comparisons", value: "comparisonCount" },
  { header: "created", value: "createdAt" },
];
const COMPARISON_COLUMNS: Column[] = [
  { header: "id", value: "id" },
  { header: "position", value: "position" },
  { header: "name", value: "name" },
  { header: "stimulus", value: (r) => stimulusText(r.stimulus) },
];
const TEMPLATE_COLUMNS: Column[] = [
  { header: "id", value: "id" },
  { header: "name", value: "name" },
  { header: "type", value: "type" },
  { header: "scale", value: "scaleType" },
  { header: "version", value: "version" },
  { header: "system", value: "isSystem" },
];
const AUTOUSER_COLUMNS: Column[] = [
  { header: "id", value: "id" },
  { header: "name", value: "name" },
  { header: "role", value: "role" },
  { header: "status", value: "status" },
  { header: "system", value: "isSystem" },
  { header: "calibration", value: "calibrationStatus" },
];
const RATING_COLUMNS: Column[] = [
  { header: "id", value: "id" },
  { header: "comparison", value: "comparisonId" },
  { header: "rater", value: "raterType" },
  { header: "skipped", value: (r) => (r.skipReason ? "yes" : "") },
  { header: "created", value: "createdAt" },
];
const WEBHOOK_COLUMNS: Column[] = [
  { header: "id", value: "id" },
  { header: "url", value: "url" },
  { header: "status", value: "status" },
  { header: "events", value: "enabled_events" },
];
const EVENT_COLUMNS: Column[] = [
  { header: "id", value: "id" },
  { header: "type", value: "type" },
  {
    header: "created",
    value: (r) => (typeof r.created === "number" ? new Date(r.created * 1000).toISOString() : ""),
  },
  { header: "object", value: (r) => (r.data as { object?: { id?: string } } | undefined)?.object?.id },
];
const API_KEY_COLUMNS: Column[] = [
  { header: "id", value: "id" },
  { header: "name", value: "name" },
  { header: "prefix", value: "prefix" },
  { header: "scopes", value: "scopes" },
  { header: "last used", value: "lastUsedAt" },
  { header: "revoked", value: "revokedAt" },
];

function stimulusText(stimulus: unknown): string {
  if (!stimulus || typeof stimulus !== "object") return "";
  const s = stimulus as Record<string, unknown>;
  const urls = [s.url, s.currentUrl, s.variantUrl, s.fileId].filter((v) => typeof v === "string");
  return urls.length ? urls.join(" vs ") : JSON.stringify(stimulus);
}

function deleted(opts: Invocation["opts"], what: string, id: string, result: unknown): void {
  if (opts.json) show(result ?? { id, deleted: true }, opts);
  else line(`Deleted ${what} ${id}.`);
}

interface CrudSpec {
  name: string;
  singular: string;
  alias?: string;
  columns: Column[];
  resource: (inv: Invocation) => Promise<ReturnType<typeof loose>>;
  createHelp?: string;
  createFlags?: (cmd: Command) => Command;
  flagsToBody?: (opts: Record<string, unknown>) => Record<string, unknown>;
  listFlags?: (cmd: Command) => Command;
  listFilters?: (opts: Record<string, unknown>) => Record<string, unknown>;
}

/** list, get, create, update and delete for a top-level collection. */
function crud(program: Command, spec: CrudSpec): Command {
  const group = program.command(spec.name).description(`${spec.name}: list, get, create, update, delete`);
  if (spec.alias) group.alias(spec.alias);

  let list = addListOptions(group.command("list").alias("ls").description(`List ${spec.name}`));
  if (spec.listFlags) list = spec.listFlags(list);
  list.action(
    action(async (inv) => {
      const r = await spec.resource(inv);
      await showList(
        r.list!(listQuery(inv.opts, spec.listFilters?.(inv.opts))) as never,
        inv.opts,
        spec.columns,
      );
    }),
  );

  group
    .command("get <id>")
    .description(`Show one ${spec.singular}`)
    .action(
      action(async (inv) => {
        const r = await spec.resource(inv);
        show(await r.retrieve!(inv.args[0]), inv.opts);
      }),
    );

  let create = addBodyOptions(
    group
      .command("create")
      .description(spec.createHelp ?? `Create ${article(spec.singular)} from --file and --set`),
  );
  if (spec.createFlags) create = spec.createFlags(create);
  create.action(
    action(async (inv) => {
      const body = await bodyFrom(inv.opts, spec.flagsToBody?.(inv.opts));
      if (Object.keys(body).length === 0)
        throw new UsageError(`Give the ${spec.singular} with --file or flags.`);
      const r = await spec.resource(inv);
      const created = (await r.create!(body)) as Record<string, unknown>;
      if (inv.opts.json) show(created, inv.opts);
      else {
        printRecord(created);
      }
    }),
  );

  let update = addBodyOptions(group.command("update <id>").description(`Change ${article(spec.singular)}`));
  if (spec.createFlags) update = spec.createFlags(update);
  update.action(
    action(async (inv) => {
      const body = await bodyFrom(inv.opts, spec.flagsToBody?.(inv.opts));
      if (Object.keys(body).length === 0)
        throw new UsageError("Nothing to change: give --file, --set or flags.");
      const r = await spec.resource(inv);
      show(await r.update!(inv.args[0], body), inv.opts);
    }),
  );

  group
    .command("delete <id>")
    .alias("rm")
    .description(`Delete ${article(spec.singular)}`)
    .action(
      action(async (inv) => {
        const r = await spec.resource(inv);
        deleted(inv.opts, spec.singular, inv.args[0]!, await r.del!(inv.args[0]));
      }),
    );
  return group;
}

function toMarkdown(ratings: Record<string, unknown>[]): string {
  const columns: Column[] = [
    { header: "rating", value: "id" },
    { header: "comparison", value: "comparisonId" },
    { header: "rater", value: "raterType" },
    { header: "scores", value: (r) => r.dimensionRatings },
    { header: "justification", value: "justification" },
    { header: "created", value: "createdAt" },
  ];
  const esc = (v: string) => v.replace(/\|/g, "\\|");
  const rows = ratings.map((r) =>
    columns.map((c) => {
      const v = typeof c.value === "string" ? r[c.value] : c.value(r);
      return esc(v === null || v === undefined ? "" : typeof v === "string" ? v : JSON.stringify(v));
    }),
  );
  return [
    `| ${columns.map((c) => c.header).join(" | ")} |`,
    `| ${columns.map(() => "---").join(" | ")} |`,
    ...rows.map((r) => `| ${r.join(" | ")} |`),
  ].join("\n");
}

export function registerResources(program: Command): void {
  const evaluations = crud(program, {
    name: "evaluations",
    singular: "evaluation",
    alias: "evals",
    columns: EVALUATION_COLUMNS,
    resource: async (inv) => loose((await inv.api()).client.evaluations),
    createHelp: "Create an evaluation from flags, or from --file with the API's JSON or YAML body",
    createFlags: (cmd) =>
      cmd
        .option("--name <name>", "its name")
        .option("--type <type>", "SSE (one design at a time) or SxS (side by side)")
        .option("--description <text>", "a description")
        .option("--url <url>", "a design to rate (SSE); repeat for more", collect),
    flagsToBody: (o) => ({
      name: o.name,
      type: o.type,
      description: o.description,
      designUrls: (o.url as string[] | undefined)?.map((url) => ({ url })),
    }),
    listFlags: (cmd) => cmd.option("--status <status>", "Draft, Running, Ended or Archived"),
    listFilters: (o) => ({ status: o.status }),
  });
  for (const [verb, status, help] of [
    ["start", "Running", "Open an evaluation for ratings (status Running)"],
    ["end", "Ended", "Close an evaluation (status Ended)"],
  ] as const) {
    evaluations
      .command(`${verb} <id>`)
      .description(help)
      .action(
        action(async (inv) => {
          const { client } = await inv.api();
          const updated = await loose(client.evaluations).update!(inv.args[0], { status });
          show(updated, inv.opts, (e: Record<string, unknown>) => line(`Evaluation ${e.id} is ${e.status}.`));
        }),
      );
  }
  evaluations
    .command("export <id>")
    .description("Write an evaluation's ratings to a file as csv, json or md")
    .option("--format <format>", "csv, json or md", "csv")
    .option("-o, --output <path>", "the file to write (default: <id>.<format>)")
    .action(
      action(async (inv) => {
        const format = String(inv.opts.format);
        if (!["csv", "json", "md"].includes(format))
          throw new UsageError(`--format must be csv, json or md, not "${format}".`);
        const id = inv.args[0]!;
        const path = typeof inv.opts.output === "string" ? inv.opts.output : `${id}.${format}`;
        const { client } = await inv.api();
        const exported = await loose(client.evaluations).export!(id, {
          format: format === "csv" ? "csv" : "json",
        });
        let text: string;
        let count: number | undefined;
        if (format === "csv") text = typeof exported === "string" ? exported : JSON.stringify(exported);
        else {
          const ratings = ((exported as { ratings?: Record<string, unknown>[] }).ratings ?? []) as Record<
            string,
            unknown
          >[];
          count = ratings.length;
          text = format === "json" ? `${JSON.stringify(exported, null, 2)}\n` : `${toMarkdown(ratings)}\n`;
        }
        try {
          writeFileSync(path, text);
        } catch (err) {
          throw new UsageError(`Cannot write ${path}: ${(err as Error).message}`);
        }
        if (inv.opts.json) show({ path, format, bytes: Buffer.byteLength(text), ratings: count }, inv.opts);
        else line(`Wrote ${path} (${format}${count === undefined ? "" : `, ${count} ratings`}).`);
      }),
    );

  const comparisons = program.command("comparisons").description("The comparisons of an evaluation");
  addListOptions(
    comparisons.command("list <evaluation>").alias("ls").description("List an evaluation's comparisons"),
  ).action(
    action(async (inv) => {
      const { client } = await inv.api();
      await showList(
        loose(client.evaluations.comparisons).list!(inv.args[0], listQuery(inv.opts)) as never,
        inv.opts,
        COMPARISON_COLUMNS,
      );
    }),
  );
  comparisons
    .command("get <evaluation> <comparison>")
    .description("Show one comparison")
    .action(
      action(async (inv) => {
        const { client } = await inv.api();
        show(await loose(client.evaluations.comparisons).retrieve!(inv.args[0], inv.args[1]), inv.opts);
      }),
    );
  addBodyOptions(
    comparisons.command("create <evaluation>").description("Add a comparison from --file and --set"),
  )
    .option("--url <url>", "the design to rate (SSE)")
    .action(
      action(async (inv) => {
        const body = await bodyFrom(inv.opts, {
          stimulus: inv.opts.url ? { type: "URL", url: inv.opts.url } : undefined,
        });
        if (Object.keys(body).length === 0)
          throw new UsageError("Give the comparison with --file, --url or --set.");
        const { client } = await inv.api();
        show(await loose(client.evaluations.comparisons).create!(inv.args[0], body), inv.opts);
      }),
    );
  addBodyOptions(
    comparisons.command("update <evaluation> <comparison>").description("Change a comparison"),
  ).action(
    action(async (inv) => {
      const body = await bodyFrom(inv.opts);
      if (Object.keys(body).length === 0) throw new UsageError("Nothing to change: give --file or --set.");
      const { client } = await inv.api();
      show(await loose(client.evaluations.comparisons).update!(inv.args[0], inv.args[1], body), inv.opts);
    }),
  );
  comparisons
    .command("delete <evaluation> <comparison>")
    .alias("rm")
    .description("Delete a comparison")
    .action(
      action(async (inv) => {
        const { client } = await inv.api();
        deleted(
          inv.opts,
          "comparison",
          inv.args[1]!,
          await loose(client.evaluations.comparisons).del!(inv.args[0], inv.args[1]),
        );
      }),
    );

  crud(program, {
    name: "templates",
    singular: "template",
    columns: TEMPLATE_COLUMNS,
    resource: async (inv) => loose((await inv.api()).client.templates),
  });
  crud(program, {
    name: "autousers",
    singular: "autouser",
    columns: AUTOUSER_COLUMNS,
    resource: async (inv) => loose((await inv.api()).client.autousers),
  });

  const ratings = program.command("ratings").description("The ratings of an evaluation");
  addListOptions(
    ratings.command("list <evaluation>").alias("ls").description("List an evaluation's ratings"),
  ).action(
    action(async (inv) => {
      const { client } = await inv.api();
      await showList(
        loose(client.evaluations.ratings).list!(inv.args[0], listQuery(inv.opts)) as never,
        inv.opts,
        RATING_COLUMNS,
      );
    }),
  );
  ratings
    .command("get <evaluation> <rating>")
    .description("Show one rating")
    .action(
      action(async (inv) => {
        const { client } = await inv.api();
        show(await loose(client.evaluations.ratings).retrieve!(inv.args[0], inv.args[1]), inv.opts);
      }),
    );

  registerResults(program, loose);

  const webhooks = crud(program, {
    name: "webhooks",
    singular: "webhook endpoint",
    columns: WEBHOOK_COLUMNS,
    resource: async (inv) => loose((await inv.api()).client.webhooks),
    createHelp: "Add a webhook endpoint (its signing secret is shown once)",
    createFlags: (cmd) =>
      cmd
        .option("--url <url>", "where deliveries are POSTed")
        .option("--events <types>", "event types, comma-separated (default: all)", commaList)
        .option("--description <text>", "a description"),
    flagsToBody: (o) => ({ url: o.url, enabled_events: o.events, description: o.description }),
  });
  webhooks
    .command("rotate-secret <id>")
    .description("Give an endpoint a new signing secret (the old one keeps signing for 24 hours)")
    .action(
      action(async (inv) => {
        const { client } = await inv.api();
        show(await loose(client.webhooks).rotateSecret!(inv.args[0]), inv.opts);
      }),
    );

  const events = program.command("events").description("The team's events (what webhooks deliver)");
  addListOptions(events.command("list").alias("ls").description("List recent events"))
    .option("--type <type>", "only this event type")
    .action(
      action(async (inv) => {
        const { client } = await inv.api();
        await showList(
          loose(client.events).list!(listQuery(inv.opts, { type: inv.opts.type })) as never,
          inv.opts,
          EVENT_COLUMNS,
        );
      }),
    );
  events
    .command("get <id>")
    .description("Show one event")
    .action(
      action(async (inv) => {
        const { client } = await inv.api();
        show(await loose(client.events).retrieve!(inv.args[0]), inv.opts);
      }),
    );

  const apiKeys = program
    .command("api-keys")
    .description("API keys (minted and revoked from a dashboard session)");
  addListOptions(apiKeys.command("list").alias("ls").description("List API keys")).action(
    action(async (inv) => {
      const { client } = await inv.api();
      await showList(loose(client.apiKeys).list!(listQuery(inv.opts)) as never, inv.opts, API_KEY_COLUMNS);
    }),
  );
  apiKeys
    .command("create")
    .description("Mint an API key (its secret is shown once)")
    .requiredOption("--name <name>", "what the key is for")
    .option("--scopes <scopes>", "comma-separated scopes", commaList, ["*"])
    .action(
      action(async (inv) => {
        const { client } = await inv.api();
        show(await loose(client.apiKeys).create!({ name: inv.opts.name, scopes: inv.opts.scopes }), inv.opts);
      }),
    );
  apiKeys
    .command("revoke <id>")
    .description("Revoke an API key")
    .action(
      action(async (inv) => {
        const { client } = await inv.api();
        deleted(inv.opts, "API key", inv.args[0]!, await loose(client.apiKeys).del!(inv.args[0]));
      }),
    );

  program
    .command("usage")
    .description("The team's plan, limits and what this period has used")
    .action(
      action(async (inv) => {
        const { client } = await inv.api();
        const usage = (await loose(client.usage).retrieve!({})) as Record<string, unknown>;
        show(usage, inv.opts, () => printNested(usage));
      }),
    );
}

/** Top-level fields as a record, then each nested object as a small table of its own. */
function printNested(value: Record<string, unknown>): void {
  const flat: Record<string, unknown> = {};
  const nested: [string, unknown][] = [];
  for (const [k, v] of Object.entries(value)) {
    if (v && typeof v === "object" && !(Array.isArray(v) && v.every((x) => typeof x !== "object")))
      nested.push([k, v]);
    else flat[k] = v;
  }
  printRecord(flat);
  for (const [k, v] of nested) {
    line();
    line(`${k}:`);
    if (Array.isArray(v)) {
      const rows = v as Record<string, unknown>[];
      const keys = [...new Set(rows.flatMap((r) => Object.keys(r ?? {})))].slice(0, 8);
      line(
        rows.length
          ? renderTable(
              rows,
              keys.map((key) => ({ header: key, value: key })),
            )
          : "(none)",
      );
    } else {
      for (const [kk, vv] of Object.entries(v as Record<string, unknown>)) {
        line(`  ${kk}: ${vv !== null && typeof vv === "object" ? JSON.stringify(vv) : String(vv)}`);
      }
    }
  }
}

function article(noun: string): string {
  return `${/^[aeiou]/i.test(noun) ? "an" : "a"} ${noun}`;
}
