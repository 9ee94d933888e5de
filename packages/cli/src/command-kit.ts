import type { ListPage, PagePromise } from "@rubricon/sdk";
import type { Command } from "commander";
import { type ClientContext, createClient, type GlobalOptions } from "./context";
import { applySets, readBodyFile } from "./input";
import { type Column, line, note, printJson, printRecord, printTable } from "./output";

export interface Invocation {
  args: string[];
  opts: Record<string, unknown> & GlobalOptions;
  command: Command;
  /** The API client, created on first use (so `--help` and bad usage never read credentials). */
  api(): Promise<ClientContext>;
}

/** Wraps an action: gives it its positional arguments, its options merged with the global ones, and a client. */
export function action(handler: (inv: Invocation) => Promise<void>) {
  return async (...all: unknown[]): Promise<void> => {
    const command = all.at(-1) as Command;
    const opts = command.optsWithGlobals() as Invocation["opts"];
    let ctx: Promise<ClientContext> | undefined;
    await handler({
      args: command.processedArgs.filter((a): a is string => typeof a === "string"),
      opts,
      command,
      api: () => {
        ctx ??= createClient(opts);
        return ctx;
      },
    });
  };
}

export function addListOptions(cmd: Command): Command {
  return cmd
    .option("--limit <n>", "items per page (1-100)")
    .option("--starting-after <id>", "the page after this id")
    .option("--all", "every page, not just the first");
}

export function listQuery(
  opts: Record<string, unknown>,
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  const query: Record<string, unknown> = { ...extra };
  if (opts.limit !== undefined) query.limit = Number(opts.limit);
  if (typeof opts.startingAfter === "string") query.starting_after = opts.startingAfter;
  for (const [k, v] of Object.entries(query)) if (v === undefined) delete query[k];
  return query;
}

/** A list: `--json` prints the page envelope (or, with `--all`, every item in one envelope); else a table. */
export async function showList(
  page: PagePromise<ListPage>,
  opts: Invocation["opts"],
  columns: readonly Column[],
): Promise<void> {
  if (opts.all) {
    const items: Record<string, unknown>[] = [];
    for await (const item of page as AsyncIterable<Record<string, unknown>>) items.push(item);
    if (opts.json) printJson({ object: "list", data: items, has_more: false });
    else printTable(items, columns);
    return;
  }
  const first = (await page) as { data: Record<string, unknown>[]; has_more: boolean; next_cursor?: string };
  if (opts.json) {
    printJson(first);
    return;
  }
  printTable(first.data, columns);
  if (first.has_more && first.next_cursor) note(`More: --starting-after ${first.next_cursor} (or --all)`);
}

export function show(value: unknown, opts: Invocation["opts"], render?: (value: never) => void): void {
  if (opts.json) printJson(value);
  else if (render) render(value as never);
  else if (value && typeof value === "object") printRecord(value as Record<string, unknown>);
  else line(String(value ?? ""));
}

/** The body of a create or update: `--file` first, then the command's own flags, then `--set` pairs. */
export async function bodyFrom(
  opts: Record<string, unknown>,
  flags: Record<string, unknown> = {},
): Promise<Record<string, unknown>> {
  const body = typeof opts.file === "string" ? await readBodyFile(opts.file) : {};
  for (const [k, v] of Object.entries(flags)) if (v !== undefined) body[k] = v;
  return applySets(body, opts.set as string[] | undefined);
}

export function addBodyOptions(cmd: Command): Command {
  return cmd
    .option("-f, --file <path>", "the request body, as JSON or YAML (- for stdin)")
    .option(
      "--set <key=value>",
      "a body field; repeat for more (values parse as JSON when they can)",
      collectSet,
    );
}

function collectSet(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}
