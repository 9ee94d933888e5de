/**
 * `pnpm bench people`: does each persona rank designs as people do? The 300 training pages of Reinecke & Gajos's
 * rating-based set (the ones the judge's sense of design was fitted on; the held-out pages are never read), each
 * served on loopback as a page that shows only its screenshot, captured by the browser code a worker runs once
 * per persona device and rated with the system "overall" template, as `run-autousers` rates. The heuristic judge
 * scores each page with the fold of the cross-validated fit that never saw it, so the figures are out of sample.
 *
 * Options: `--limit N` (N pages spread over the set), `--personas a,b`, `--concurrency N`, `--one-desktop`, and
 * `--judge model` to rate with a language model instead (`BENCH_MODEL=provider/model`, `BENCH_MODEL_KEY`,
 * optional `BENCH_MODEL_BASE_URL`), so a team measures its own model the same way.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import {
  type AgentBrowser,
  APPEAL_FIT,
  type AppealFit,
  createHeuristicJudge,
  createLlmJudge,
  HEURISTIC_MODEL,
  type Judge,
  launchAgentBrowser,
  type ModelConfig,
  type ModelProvider,
  type PageCapture,
  type PersonaDevice,
} from "@rubricon/agents";
import { type TrainingPage, trainingImage, trainingPages } from "@rubricon/agents/appeal-data";
import type { Database } from "@rubricon/db";
import { type Figure, writeFigures } from "../figures";
import { capture, deviceKey, loopbackOnly, pool } from "../judge/judge-bench";
import { loadSystemPersonas, type SystemPersona } from "../judge/personas";
import { renderTable } from "../table";
import { type PeopleScore, peopleFigures } from "./figures";

export interface PeoplePage {
  id: string;
  /** People's mean rating. */
  rating: number;
  png: () => Uint8Array;
}

type FittedFile = AppealFit & {
  crossValidatedSpearman: number;
  folds: Omit<AppealFit, "features">[];
  pageFolds: Record<string, number>;
};

/** The fold model that never saw this page (the shipped fit for a page outside the training set). */
export function foldFitFor(page: string, file = APPEAL_FIT as FittedFile): AppealFit {
  const fold = file.pageFolds?.[page];
  const fit = fold === undefined ? undefined : file.folds?.[fold];
  return fit ? { ...fit, features: file.features } : file;
}

/** Serves `/page/<n>` as a page that is only the n-th screenshot (full width, as a design is shown) and `/img/<n>.png`. */
export async function startPeopleSite(pages: PeoplePage[]): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createServer((req, res) => {
    const path = new URL(req.url ?? "/", "http://x").pathname;
    const m = /^\/(page|img)\/(\d+)(\.png)?$/.exec(path);
    const page = m ? pages[Number(m[2])] : undefined;
    if (!m || !page) {
      res.writeHead(404, { "content-type": "text/plain" }).end("not found");
      return;
    }
    if (m[1] === "page") {
      res
        .writeHead(200, { "content-type": "text/html; charset=utf-8" })
        .end(
          `<!doctype html><html><head><meta charset="utf-8"><title>Screenshot</title></head>` +
            `<body style="margin:0"><img src="/img/${m[2]}.png" style="display:block;width:100%"></body></html>`,
        );
      return;
    }
    res.writeHead(200, { "content-type": "image/png" }).end(page.png());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** Who sees the screenshot: everyone but a screen-reader user without low vision. */
export const seesPage = (p: SystemPersona) =>
  !p.persona.accessibilityNeeds.includes("screen-reader") ||
  p.persona.accessibilityNeeds.includes("low-vision");

const short = (id: string) => id.replace(/^auto_/, "");

/**
 * Captures every page once per persona device and has each persona rate it with `judgeFor(page)`. A page that
 * cannot be captured or rated is reported with its reason and left out; the others are still rated.
 */
export async function ratePeople(options: {
  pages: PeoplePage[];
  personas: SystemPersona[];
  browser: AgentBrowser;
  judgeFor: (page: PeoplePage) => Judge;
  concurrency: number;
  oneDesktop?: boolean;
  log?: (line: string) => void;
}): Promise<{ scores: PeopleScore[]; failures: string[] }> {
  const { pages, personas, browser } = options;
  const site = await startPeopleSite(pages);
  const firstDesktop = personas.find((p) => p.persona.device.kind === "desktop")?.persona.device;
  const deviceOf = (p: SystemPersona): PersonaDevice =>
    options.oneDesktop && firstDesktop && p.persona.device.kind === "desktop"
      ? firstDesktop
      : p.persona.device;
  const devices = new Map<string, PersonaDevice>();
  for (const p of personas) devices.set(deviceKey(deviceOf(p)), deviceOf(p));
  const work = pages.flatMap((page, index) =>
    [...devices.entries()].map(([key, device]) => ({ page, index, key, device })),
  );
  const scores: PeopleScore[] = [];
  const failures: string[] = [];
  let done = 0;
  try {
    await pool(work, options.concurrency, async ({ page, index, key, device }) => {
      let shot: PageCapture;
      try {
        shot = await capture(browser, device, `${site.url}/page/${index}`, loopbackOnly([site.url]));
      } catch (err) {
        failures.push(`${page.id} (${key}): ${(err as Error).message}`);
        return;
      }
      const judge = options.judgeFor(page);
      for (const p of personas) {
        if (deviceKey(deviceOf(p)) !== key) continue;
        try {
          const result = await judge.rate({
            persona: p.persona,
            instructions: null,
            scenario: null,
            templates: [p.template],
            task: { type: "SSE", capture: shot },
          });
          scores.push({
            page: page.id,
            people: page.rating,
            persona: short(p.id),
            score: result.ratings[p.template.id]!,
          });
        } catch (err) {
          failures.push(`${page.id} (${short(p.id)}): ${(err as Error).message}`);
        }
      }
      done++;
      if (done % 20 === 0 || done === work.length) options.log?.(`${done} of ${work.length} captures rated`);
    });
  } finally {
    await site.close();
  }
  return { scores, failures };
}

/** `n` pages spread evenly over the set (all when n is null or at least the set). */
export function spread<T>(items: T[], n: number | null): T[] {
  if (n === null || n >= items.length) return items;
  return Array.from({ length: n }, (_, i) => items[Math.floor((i * items.length) / n)]!);
}

/** The model a team measures with `--judge model`, from `BENCH_MODEL`, `BENCH_MODEL_KEY`, `BENCH_MODEL_BASE_URL`. */
export function benchModelConfig(env: Record<string, string | undefined> = process.env): ModelConfig {
  const named = env.BENCH_MODEL ?? "";
  const slash = named.indexOf("/");
  if (slash <= 0) throw new Error("--judge model needs BENCH_MODEL=<provider>/<model> and BENCH_MODEL_KEY");
  return {
    provider: named.slice(0, slash) as ModelProvider,
    model: named.slice(slash + 1),
    apiKey: env.BENCH_MODEL_KEY ?? null,
    baseUrl: env.BENCH_MODEL_BASE_URL ?? null,
    source: "byok",
  };
}

export async function benchPeople(
  database: Database,
  flags: Record<string, string>,
  log: (line: string) => void,
): Promise<{ figures: Figure[]; pass: boolean }> {
  const useModel = flags.judge === "model";
  if (flags.judge && !["model", "heuristic"].includes(flags.judge))
    throw new Error(`--judge is heuristic or model, not ${flags.judge}`);
  const all = await loadSystemPersonas(database);
  const wanted = (flags.personas ?? "").split(",").filter(Boolean);
  const personas = wanted.length ? all.filter((p) => wanted.some((w) => p.id.includes(w))) : all;
  const limit = flags.limit ? Number(flags.limit) : null;
  const training: TrainingPage[] = trainingPages();
  const pages: PeoplePage[] = spread(training, limit).map((p) => ({
    id: p.id,
    rating: p.rating,
    png: () => trainingImage(p),
  }));
  const model = useModel ? createLlmJudge(benchModelConfig()) : null;
  const judges = new Map<string, Judge>();
  const judgeFor = (page: PeoplePage) => {
    if (model) return model;
    const fit = foldFitFor(page.id);
    const key = JSON.stringify(fit.coefficients);
    if (!judges.has(key)) judges.set(key, createHeuristicJudge({ appealFit: fit }));
    return judges.get(key)!;
  };
  log(
    `${pages.length} of ${training.length} training pages, ${personas.length} personas, judge ${useModel ? "model" : HEURISTIC_MODEL}`,
  );
  const browser = await launchAgentBrowser({ chromiumPath: process.env.CHROMIUM_PATH });
  let result: Awaited<ReturnType<typeof ratePeople>>;
  try {
    result = await ratePeople({
      pages,
      personas,
      browser,
      judgeFor,
      concurrency: Number(flags.concurrency ?? 2),
      oneDesktop: flags["one-desktop"] === "true",
      log,
    });
  } finally {
    await browser.close();
  }
  for (const f of result.failures) log(`not rated: ${f}`);
  const ids = personas.map((p) => ({ id: short(p.id), sees: seesPage(p) }));
  const figures = [
    ...peopleFigures(result.scores, ids),
    ...(useModel
      ? []
      : [
          {
            name: "people.fit.crossValidatedSpearman",
            value: (APPEAL_FIT as FittedFile).crossValidatedSpearman,
            unit: "",
            target: null,
            pass: null,
          },
        ]),
  ];
  process.stdout.write(
    `\nPEOPLE: ${pages.length} training pages\n${renderTable(
      ["figure", "value", "target", ""],
      figures.map((f) => [
        f.name,
        String(f.value),
        f.target ?? "",
        f.pass === null ? "" : f.pass ? "pass" : "FAIL",
      ]),
    )}\n`,
  );
  const section = useModel ? "people-model" : "people";
  const path = writeFigures(section, figures, {
    judge: useModel ? `${benchModelConfig().provider}/${benchModelConfig().model}` : HEURISTIC_MODEL,
    pages: pages.length,
    skipped: result.failures,
  });
  log(`results in ${path}`);
  return { figures, pass: figures.every((f) => f.pass !== false) };
}
