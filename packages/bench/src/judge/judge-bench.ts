/**
 * `pnpm bench judge`: how well the judge tells a real page from its degraded twins. Published templates are
 * installed from npm (corpus.ts), served on loopback with their twins (site.ts, degrade.ts), captured by the same
 * browser code a worker runs, once per persona device, and rated by the judge a worker would use for every system
 * autouser with the system "overall" template (SSE, its real scale).
 *
 * Options: `--corpus tuning|heldout|all`, `--limit N` (pages per package), `--page <id part>`, `--twins a,b`,
 * `--personas a,b` (id parts), `--one-desktop`, `--concurrency N`, and `--url <address>` to rate one page and
 * print every persona's score and evidence. `--save-captures <file>` keeps every capture's measures (no
 * screenshot) and `--replay <file>` rates those again without a browser, so a formula change is measured on
 * the same captures in seconds.
 */
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  type AgentBrowser,
  createHeuristicJudge,
  HEURISTIC_MODEL,
  type Judge,
  launchAgentBrowser,
  type PageCapture,
  type PersonaDevice,
  visualSignals,
} from "@rubricon/agents";
import type { Database } from "@rubricon/db";
import { writeFigures } from "../figures";
import { BENCH_DIR } from "../servers";
import { renderTable } from "../table";
import { type CorpusName, installCorpus, PACKAGES, packageDir, prefixOf } from "./corpus";
import { DEGRADATION_LABELS, DEGRADATIONS, type Degradation } from "./degrade";
import { loadSystemPersonas, type SystemPersona } from "./personas";
import {
  deviceFor,
  distinctScores,
  type SavedCapture,
  SCREENSHOT_TWINS,
  type ShotScore,
  sameScreenshot,
  screenshotFigures,
  shotPages,
  shotPairs,
  startShotSite,
} from "./screenshots";
import { type CorpusSite, startCorpusSite } from "./site";
import { type Figure, figuresOf, type PairResult, tally } from "./summary";

export interface JudgeBenchOptions {
  corpus: CorpusName | "all";
  /** At most this many pages of each package (a quick run). */
  limit: number | null;
  /** Only personas whose id contains one of these; all when empty. */
  personas: string[];
  /** Only these degradations; all when empty. */
  twins: Degradation[];
  /**
   * Desktop personas share one capture at the first desktop viewport instead of one per viewport: about half the
   * captures, for quick tuning runs (the figures are then not quite the worker's).
   */
  oneDesktop: boolean;
  /** Only pages whose id (`<package>/<path>`) contains this. */
  page: string | null;
  /** Rate this one address (no twins) and print every persona's score and evidence. */
  url: string | null;
  concurrency: number;
  /** Write every capture (without its screenshot) to this file. */
  saveCaptures: string | null;
  /** Rate the captures of this file (written by `saveCaptures`) instead of browsing. */
  replay: string | null;
  /**
   * The screenshot-only section: serve the screenshots saved with this captures file as pages that are only the
   * image, and rate those (`replay` and `saveCaptures` then hold those pages' captures).
   */
  screenshots: string | null;
}

export function judgeBenchOptions(flags: Record<string, string>): JudgeBenchOptions {
  const corpus = flags.corpus ?? "all";
  if (!["tuning", "heldout", "all"].includes(corpus))
    throw new Error(`--corpus is tuning, heldout or all, not ${corpus}`);
  const limit = flags.limit === undefined ? null : Number(flags.limit);
  if (limit !== null && !(Number.isInteger(limit) && limit > 0))
    throw new Error("--limit takes a whole number above 0");
  const list = (v: string | undefined) =>
    v
      ? v
          .split(",")
          .map((x) => x.trim())
          .filter(Boolean)
      : [];
  const twins = list(flags.twins);
  const unknown = twins.filter((t) => !(DEGRADATIONS as readonly string[]).includes(t));
  if (unknown.length > 0)
    throw new Error(`unknown --twins ${unknown.join(", ")}; twins: ${DEGRADATIONS.join(", ")}`);
  const concurrency = Number(flags.concurrency ?? process.env.BENCH_JUDGE_CONCURRENCY ?? 2);
  return {
    corpus: corpus as JudgeBenchOptions["corpus"],
    limit,
    personas: list(flags.personas),
    twins: twins as Degradation[],
    oneDesktop: flags["one-desktop"] === "true",
    page: flags.page ?? null,
    url: flags.url ?? null,
    concurrency: Math.max(1, Math.min(8, Math.floor(concurrency) || 2)),
    saveCaptures: flags["save-captures"] ?? null,
    replay: flags.replay ?? null,
    screenshots: flags.screenshots ?? null,
  };
}

/** Where `--save-captures <file>` keeps the captures' screenshots: `<file>.shots/`. */
export function shotsDirOf(capturesFile: string): string {
  return `${capturesFile}.shots`;
}

/** Where the corpus packages are installed; kept between runs. */
export function corpusCacheDir(): string {
  return process.env.JUDGE_CORPUS_DIR ?? join(BENCH_DIR, "node_modules", ".cache", "judge-corpus");
}

interface CorpusPage {
  corpus: CorpusName;
  id: string;
  kind: string;
  url: string;
}

/**
 * The bench rates pages, not page speed: every device is captured on the fast network, so the mobile persona's
 * slow-3G profile does not turn each of its captures into a minute of waiting (both pages of a pair get the same).
 */
export function deviceKey(device: PersonaDevice): string {
  return `${device.kind}:${device.viewport.width}x${device.viewport.height}`;
}

export async function pool<T>(items: T[], size: number, work: (item: T) => Promise<void>): Promise<void> {
  const queue = [...items];
  await Promise.all(
    Array.from({ length: Math.min(size, queue.length) }, async () => {
      for (let item = queue.shift(); item !== undefined; item = queue.shift()) await work(item);
    }),
  );
}

export const loopbackOnly =
  (origins: string[]) =>
  async (raw: string): Promise<boolean> => {
    if (/^(data|blob|about):/.test(raw)) return true;
    return origins.some((o) => raw === o || raw.startsWith(`${o}/`));
  };

const anyWebAddress = async (raw: string) => /^(https?|data|blob|about):/.test(raw);

/**
 * How often a capture that came back without its screenshot (or without axe's result) is taken again. The product
 * gives a screenshot 10 s and axe 15 s, which a loaded machine can miss; a capture missing either is a different
 * page to the judge (no appeal, axe unknown), so the bench would measure the machine's load, not the judge.
 */
export const CAPTURE_RETRIES = 2;

async function captureOnce(
  browser: AgentBrowser,
  device: PersonaDevice,
  url: string,
  isAllowedUrl: (url: string) => Promise<boolean>,
): Promise<PageCapture> {
  const page = await browser.open({
    device: { ...device, network: "fast" },
    isAllowedUrl,
    pageTimeoutMs: 30_000,
  });
  try {
    return await page.visit(url);
  } finally {
    await page.close();
  }
}

type SavedShot = PageCapture & { fingerprint?: string; shotFile?: string | null };

/**
 * A saved capture with its screenshot measures taken again from the saved screenshot, so a change to those
 * measures is replayed like a change to the judge's formulas (the file and its device's scale as the capture had).
 */
export function remeasured(stored: PageCapture, shotsDir: string): PageCapture {
  const file = (stored as SavedShot).shotFile;
  if (!file || !existsSync(join(shotsDir, file))) return stored;
  const png = readFileSync(join(shotsDir, file));
  const width = png.byteLength > 24 ? png.readUInt32BE(16) : 0;
  const scale = stored.viewport.width > 0 ? width / stored.viewport.width : 1;
  try {
    return { ...stored, signals: { ...stored.signals, visual: visualSignals(png, scale) } };
  } catch {
    return stored;
  }
}

/** Whether a capture lost part of itself to the product's time limits. */
export function incomplete(shot: PageCapture): boolean {
  return shot.screenshot === null || shot.signals.axeChecked === false;
}

/** A capture, taken again up to `CAPTURE_RETRIES` times while it lacks its screenshot or axe's result. */
export async function capture(
  browser: AgentBrowser,
  device: PersonaDevice,
  url: string,
  isAllowedUrl: (url: string) => Promise<boolean>,
  retried?: { count: number },
): Promise<PageCapture> {
  let shot = await captureOnce(browser, device, url, isAllowedUrl);
  for (let i = 0; i < CAPTURE_RETRIES && incomplete(shot); i++) {
    if (retried) retried.count++;
    const again = await captureOnce(browser, device, url, isAllowedUrl);
    // Keep whichever is more complete: a retry on a still busier machine can lose more.
    if (
      Number(again.screenshot !== null) + Number(again.signals.axeChecked !== false) >=
      Number(shot.screenshot !== null) + Number(shot.signals.axeChecked !== false)
    )
      shot = again;
  }
  return shot;
}

interface Rated {
  score: number;
  model: string;
  evidence: string[];
  justification: string;
}

async function rate(judge: Judge, p: SystemPersona, shot: PageCapture): Promise<Rated> {
  const result = await judge.rate({
    persona: p.persona,
    instructions: null,
    scenario: null,
    templates: [p.template],
    task: { type: "SSE", capture: shot },
  });
  return {
    score: result.ratings[p.template.id]!,
    model: result.model,
    evidence: result.evidence,
    justification: result.justification,
  };
}

const short = (id: string) => id.replace(/^auto_/, "");

async function rateOneUrl(
  opts: JudgeBenchOptions,
  personas: SystemPersona[],
  judge: Judge,
  browser: AgentBrowser,
  log: (line: string) => void,
): Promise<number> {
  const url = opts.url!;
  const raters =
    opts.personas.length > 0 ? personas.filter((p) => opts.personas.some((s) => p.id.includes(s))) : personas;
  for (const p of raters) {
    const shot = await capture(browser, p.persona.device, url, anyWebAddress);
    const r = await rate(judge, p, shot);
    process.stdout.write(
      `${short(p.id)} (${deviceKey(p.persona.device)}): ${r.score} of ${p.template.scaleMin}..${p.template.scaleMax} [${r.model}]\n` +
        `  ${r.justification}\n${r.evidence.map((e) => `  - ${e}`).join("\n")}\n`,
    );
  }
  log(`rated ${url} for ${raters.length} personas`);
  return 0;
}

function fmt(n: number): string {
  return Number.isNaN(n) ? "-" : n.toFixed(2);
}

function printCorpus(
  corpus: CorpusName,
  pairs: PairResult[],
  personas: string[],
  degradations: readonly Degradation[],
): void {
  const inCorpus = pairs.filter((p) => p.corpus === corpus);
  if (inCorpus.length === 0) return;
  const header = [
    "degradation",
    "pairs",
    ...personas.map((_, i) => `P${i + 1}`),
    "all",
    "ties",
    "intact med",
    "twin med",
  ];
  const row = (label: string, ps: PairResult[]) => {
    const t = tally(ps);
    return [
      label,
      String(t.pairs),
      ...personas.map((persona) => fmt(tally(ps.filter((p) => p.persona === persona)).accuracy)),
      fmt(t.accuracy),
      fmt(t.ties),
      fmt(t.intactMedian),
      fmt(t.degradedMedian),
    ];
  };
  const body = degradations.map((d) =>
    row(
      DEGRADATION_LABELS[d],
      inCorpus.filter((p) => p.degradation === d),
    ),
  );
  body.push(row("all", inCorpus));
  const pages = new Set(inCorpus.map((p) => p.page)).size;
  process.stdout.write(
    `\n${corpus === "tuning" ? "TUNING" : "HELD-OUT (startbootstrap-*)"} corpus: ${pages} pages; share of pairs where ` +
      `the intact page scored higher (a tie counts half), target >= 0.95, ties <= 0.05\n${renderTable(header, body)}\n` +
      personas.map((p, i) => `P${i + 1} = ${p}`).join(", ") +
      "\n",
  );
}

export async function benchJudge(
  database: Database,
  flags: Record<string, string>,
  log: (line: string) => void,
): Promise<{ figures: Figure[]; pass: boolean }> {
  const opts = judgeBenchOptions(flags);
  const personas = await loadSystemPersonas(database);
  log(`${personas.length} system personas: ${personas.map((p) => short(p.id)).join(", ")}`);
  const judge = createHeuristicJudge();
  const browser = opts.replay ? null : await launchAgentBrowser({ chromiumPath: process.env.CHROMIUM_PATH });
  const sites: CorpusSite[] = [];
  try {
    if (opts.screenshots) return await rateScreenshots(opts, personas, judge, browser, log);
    if (opts.url) {
      if (!browser) throw new Error("--url rates a live page; it does not combine with --replay");
      await rateOneUrl(opts, personas, judge, browser, log);
      return { figures: [], pass: true };
    }
    const cacheDir = corpusCacheDir();
    mkdirSync(cacheDir, { recursive: true });
    const wanted = PACKAGES.filter((p) => opts.corpus === "all" || p.corpus === opts.corpus);
    const ready = await installCorpus(cacheDir, wanted, log);
    const pages: CorpusPage[] = [];
    const siteOf = new Map<string, CorpusSite>();
    for (const pkg of ready) {
      const site = await startCorpusSite(
        join(packageDir(cacheDir, pkg), pkg.root),
        join(prefixOf(cacheDir, pkg), "node_modules"),
      );
      sites.push(site);
      for (const page of pkg.pages) {
        const id = `${pkg.name}/${page.path}`;
        siteOf.set(id, site);
        pages.push({ corpus: pkg.corpus, id, kind: page.kind, url: `${site.url}/${page.path}` });
      }
    }
    let chosen = opts.page ? pages.filter((p) => p.id.includes(opts.page!)) : pages;
    if (opts.limit !== null) {
      const limit = opts.limit;
      chosen = ready.flatMap((pkg) => chosen.filter((p) => p.id.startsWith(`${pkg.name}/`)).slice(0, limit));
    }
    if (chosen.length === 0) throw new Error("no corpus page matches the options");
    const isAllowedUrl = loopbackOnly(sites.map((s) => s.url));

    const raters =
      opts.personas.length > 0
        ? personas.filter((p) => opts.personas.some((s) => p.id.includes(s)))
        : personas;
    if (raters.length === 0) throw new Error("no system persona matches --personas");
    const firstDesktop = raters.find((p) => p.persona.device.kind === "desktop")?.persona.device;
    const deviceOf = (p: SystemPersona) =>
      opts.oneDesktop && firstDesktop && p.persona.device.kind === "desktop"
        ? firstDesktop
        : p.persona.device;
    const devices = new Map<string, PersonaDevice>();
    for (const p of raters) devices.set(deviceKey(deviceOf(p)), deviceOf(p));
    const degradations = opts.twins.length > 0 ? opts.twins : DEGRADATIONS;
    const variants: (Degradation | null)[] = [null, ...degradations];
    // A twin whose transform changes nothing (no images to break, nothing labelled) is not a worse page: its
    // pairs are left out rather than counted as ties.
    const unchanged: string[] = [];
    const applies = new Set<string>();
    for (const page of chosen) {
      const intactHtml = await fetch(page.url).then((r) => r.text());
      for (const d of degradations) {
        const twinHtml = await fetch(`${page.url}?twin=${d}`).then((r) => r.text());
        if (twinHtml === intactHtml) unchanged.push(`${page.id} ${d}`);
        else applies.add(`${page.id}|${d}`);
      }
    }
    const jobs = chosen.flatMap((page) =>
      variants
        .filter((variant) => variant === null || applies.has(`${page.id}|${variant}`))
        .flatMap((variant) => [...devices.values()].map((device) => ({ page, variant, device }))),
    );
    if (unchanged.length > 0)
      log(`${unchanged.length} twins change nothing and are left out: ${unchanged.join(", ")}`);
    log(
      `${chosen.length} pages, up to ${variants.length} variants each × ${devices.size} devices = ${jobs.length} captures, ` +
        `${opts.concurrency} at a time`,
    );
    const scores = new Map<string, Rated>();
    const failures: string[] = [];
    const replayed: Record<string, PageCapture> = opts.replay
      ? (JSON.parse(readFileSync(opts.replay, "utf8")) as { captures: Record<string, PageCapture> }).captures
      : {};
    const saved: Record<string, PageCapture & { fingerprint: string; shotFile: string | null }> = {};
    // What the visitor gets, per capture: the screenshot's pixels and the accessibility tree. A twin that renders
    // exactly like its intact page (its change hit nothing on screen or in the tree) is not a worse page.
    const fingerprints = new Map<string, string>();
    const retried = { count: 0 };
    const noScreenshot: string[] = [];
    const noAxe: string[] = [];
    let done = 0;
    let rateMs = 0;
    let rated = 0;
    const started = Date.now();
    await pool(jobs, opts.replay ? 1 : opts.concurrency, async ({ page, variant, device }) => {
      const url = variant ? `${page.url}?twin=${variant}` : page.url;
      const key = `${page.id}|${variant ?? "intact"}|${deviceKey(device)}`;
      let shot: PageCapture;
      if (opts.replay) {
        const stored = replayed[key];
        if (!stored) {
          failures.push(`${key}: not in ${opts.replay}`);
          return;
        }
        shot = remeasured(stored, shotsDirOf(opts.replay));
        if (!(stored as SavedShot).shotFile) noScreenshot.push(key);
        if (stored.signals.axeChecked === false) noAxe.push(key);
        // Captures saved before fingerprints: the screenshot's measures, the tree and the text stand in for pixels.
        const stamp =
          (stored as PageCapture & { fingerprint?: string }).fingerprint ??
          createHash("sha256")
            .update(JSON.stringify(stored.signals.visual))
            .update(stored.accessibilityTree)
            .update(stored.visibleText)
            .digest("hex");
        fingerprints.set(key, stamp);
      } else {
        try {
          shot = await capture(browser!, device, url, isAllowedUrl, retried);
        } catch (err) {
          failures.push(`${page.id} ${variant ?? "intact"} ${deviceKey(device)}: ${(err as Error).message}`);
          return;
        }
        if (shot.screenshot === null) noScreenshot.push(key);
        if (shot.signals.axeChecked === false) noAxe.push(key);
        const fingerprint = createHash("sha256")
          .update(shot.screenshot ?? new Uint8Array())
          .update(shot.accessibilityTree)
          .digest("hex");
        fingerprints.set(key, fingerprint);
        if (opts.saveCaptures) {
          // The screenshot goes beside the file, for the screenshot-only section to serve it again.
          const shotFile = shot.screenshot
            ? `${createHash("sha256").update(key).digest("hex").slice(0, 20)}.png`
            : null;
          if (shotFile && shot.screenshot) {
            mkdirSync(shotsDirOf(opts.saveCaptures), { recursive: true });
            writeFileSync(join(shotsDirOf(opts.saveCaptures), shotFile), shot.screenshot);
          }
          saved[key] = { ...shot, screenshot: null, fingerprint, shotFile };
        }
      }
      for (const p of raters) {
        if (deviceKey(deviceOf(p)) !== deviceKey(device)) continue;
        const t0 = performance.now();
        scores.set(`${page.id}|${variant ?? "intact"}|${p.id}`, await rate(judge, p, shot));
        rateMs += performance.now() - t0;
        rated++;
      }
      done++;
      if (!opts.replay && (done % 20 === 0 || done === jobs.length))
        log(`${done} of ${jobs.length} captures (${Math.round((Date.now() - started) / 1000)} s)`);
    });
    log(
      `${noScreenshot.length} of ${jobs.length} captures lack a screenshot, ${noAxe.length} lack axe's result` +
        (opts.replay ? "" : ` (${retried.count} captures taken again)`),
    );
    if (rated > 0) log(`the judge took ${(rateMs / rated).toFixed(2)} ms a rating (${rated} ratings)`);
    if (opts.saveCaptures) {
      const merged = existsSync(opts.saveCaptures)
        ? (JSON.parse(readFileSync(opts.saveCaptures, "utf8")) as { captures: Record<string, PageCapture> })
            .captures
        : {};
      writeFileSync(opts.saveCaptures, JSON.stringify({ captures: { ...merged, ...saved } }));
      log(`${Object.keys(saved).length} captures saved to ${opts.saveCaptures}`);
    }
    for (const f of failures) log(`capture failed: ${f}`);

    const pairs: PairResult[] = [];
    const detail: unknown[] = [];
    const alike = new Set<string>();
    for (const page of chosen) {
      for (const p of raters) {
        const intact = scores.get(`${page.id}|intact|${p.id}`);
        if (!intact) continue;
        const device = deviceKey(deviceOf(p));
        for (const d of degradations) {
          const twin = scores.get(`${page.id}|${d}|${p.id}`);
          if (!twin) continue;
          const stamp = fingerprints.get(`${page.id}|${d}|${device}`);
          if (stamp && stamp === fingerprints.get(`${page.id}|intact|${device}`)) {
            alike.add(`${page.id} ${d} ${device}`);
            continue;
          }
          pairs.push({
            corpus: page.corpus,
            page: page.id,
            persona: short(p.id),
            degradation: d,
            intact: intact.score,
            degraded: twin.score,
          });
          detail.push({
            corpus: page.corpus,
            page: page.id,
            kind: page.kind,
            persona: short(p.id),
            degradation: d,
            intact: { score: intact.score, evidence: intact.evidence },
            degraded: { score: twin.score, evidence: twin.evidence },
          });
        }
      }
    }
    if (alike.size > 0)
      log(`${alike.size} twins render exactly like their page and are left out: ${[...alike].join(", ")}`);
    const personaIds = raters.map((p) => short(p.id));
    for (const c of ["tuning", "heldout"] as const) printCorpus(c, pairs, personaIds, degradations);
    const model = [...new Set([...scores.values()].map((s) => s.model))].join(", ");
    const figures = figuresOf(pairs, personaIds, degradations);
    const pass = figures.every((f) => f.pass !== false) && failures.length === 0;
    const resultsDir = join(BENCH_DIR, "results");
    const rewrites = Object.fromEntries(
      sites.flatMap((s) => [...s.rewrites.entries()]).map(([path, list]) => [path, list]),
    );
    writeFigures("judge", figures, {
      judge: model,
      corpus: opts.corpus,
      options: {
        limit: opts.limit,
        page: opts.page,
        personas: opts.personas,
        twins: opts.twins,
        oneDesktop: opts.oneDesktop,
      },
      devices: [...devices.keys()],
      pages: chosen.map((p) => ({ corpus: p.corpus, id: p.id, kind: p.kind })),
      captureFailures: failures,
      capturesWithoutScreenshot: noScreenshot,
      capturesWithoutAxe: noAxe,
      capturesRetaken: opts.replay ? null : retried.count,
      twinsLeftOut: unchanged,
      twinsRenderedAlike: [...alike],
      localisedLinks: rewrites,
    });
    writeFileSync(join(resultsDir, "judge-pairs.json"), `${JSON.stringify(detail, null, 1)}\n`);
    log(`judge ${model}; results in ${join(resultsDir, "judge.json")}, every pair in judge-pairs.json`);
    return { figures, pass };
  } finally {
    await browser?.close();
    await Promise.all(sites.map((s) => s.close()));
  }
}

/** Who sees the screenshot: everyone but a screen-reader user without low vision. */
function sees(p: SystemPersona): boolean {
  const needs = p.persona.accessibilityNeeds;
  return !needs.includes("screen-reader") || needs.includes("low-vision");
}

async function rateScreenshots(
  opts: JudgeBenchOptions,
  personas: SystemPersona[],
  judge: Judge,
  browser: AgentBrowser | null,
  log: (line: string) => void,
): Promise<{ figures: Figure[]; pass: boolean }> {
  const source = opts.screenshots!;
  const saved = (JSON.parse(readFileSync(source, "utf8")) as { captures: Record<string, SavedCapture> })
    .captures;
  let shots = shotPages(saved).filter((s) => opts.corpus === "all" || s.corpus === opts.corpus);
  if (opts.page) shots = shots.filter((s) => s.page.includes(opts.page!));
  if (opts.twins.length > 0)
    shots = shots.filter((s) => s.variant === "intact" || opts.twins.includes(s.variant));
  if (shots.length === 0) throw new Error(`no screenshots in ${shotsDirOf(source)} match the options`);
  for (const s of shots) {
    try {
      s.pixels = createHash("sha256")
        .update(readFileSync(join(shotsDirOf(source), s.file)))
        .digest("hex");
    } catch {
      // A screenshot file that is gone fails its capture below and is reported there.
    }
  }
  const samePixels = shots.filter(
    (s) =>
      s.variant !== "intact" &&
      shots.some(
        (i) => i.variant === "intact" && i.page === s.page && i.device === s.device && sameScreenshot(i, s),
      ),
  );
  if (samePixels.length > 0)
    log(
      `${samePixels.length} twins' screenshots equal their page's and make no pair: ` +
        samePixels.map((s) => s.key).join(", "),
    );
  const raters =
    opts.personas.length > 0 ? personas.filter((p) => opts.personas.some((s) => p.id.includes(s))) : personas;
  const taken = new Set(shots.map((s) => s.device));
  const firstDesktop = [...taken].find((k) => k.startsWith("desktop:"));
  // Captures made with --one-desktop hold one desktop viewport: the desktop personas share it.
  const deviceKeyOf = (p: SystemPersona) =>
    taken.has(deviceKey(p.persona.device)) || p.persona.device.kind !== "desktop"
      ? deviceKey(p.persona.device)
      : (firstDesktop ?? deviceKey(p.persona.device));
  const devices = raters.map((p) => p.persona.device);
  const wanted = shots.filter((s) => raters.some((p) => deviceKeyOf(p) === s.device));
  const replayed: Record<string, PageCapture> = opts.replay
    ? (JSON.parse(readFileSync(opts.replay, "utf8")) as { captures: Record<string, PageCapture> }).captures
    : {};
  const site = opts.replay ? null : await startShotSite(shotsDirOf(source));
  const kept: Record<string, PageCapture> = {};
  const retried = { count: 0 };
  const scores: ShotScore[] = [];
  const failures: string[] = [];
  log(`${wanted.length} screenshots served as pages that show only the image, for ${raters.length} personas`);
  try {
    let done = 0;
    await pool(wanted, opts.replay ? 1 : opts.concurrency, async (shot) => {
      let page: PageCapture | undefined;
      if (opts.replay) page = replayed[shot.key] && remeasured(replayed[shot.key]!, shotsDirOf(opts.replay));
      else {
        const device = deviceFor(shot.device, devices);
        if (!device || !browser || !site) return;
        try {
          page = await capture(
            browser,
            device,
            `${site.url}/page/${shot.file}`,
            loopbackOnly([site.url]),
            retried,
          );
        } catch (err) {
          failures.push(`${shot.key}: ${(err as Error).message}`);
          return;
        }
        // The screenshot page's own screenshot is kept too, so a change to the screenshot measures replays.
        const shotFile = page.screenshot
          ? `${createHash("sha256").update(shot.key).digest("hex").slice(0, 20)}.png`
          : null;
        if (opts.saveCaptures && shotFile && page.screenshot) {
          mkdirSync(shotsDirOf(opts.saveCaptures), { recursive: true });
          writeFileSync(join(shotsDirOf(opts.saveCaptures), shotFile), page.screenshot);
        }
        kept[shot.key] = { ...page, screenshot: null, shotFile } as PageCapture;
      }
      if (!page) {
        failures.push(`${shot.key}: not in ${opts.replay}`);
        return;
      }
      for (const p of raters) {
        if (deviceKeyOf(p) !== shot.device) continue;
        scores.push({ shot, persona: short(p.id), score: (await rate(judge, p, page)).score });
      }
      done++;
      if (!opts.replay && (done % 20 === 0 || done === wanted.length))
        log(`${done} of ${wanted.length} screenshot pages`);
    });
  } finally {
    await site?.close();
  }
  if (opts.saveCaptures) {
    writeFileSync(opts.saveCaptures, JSON.stringify({ captures: kept }));
    log(`${Object.keys(kept).length} screenshot-page captures saved to ${opts.saveCaptures}`);
  }
  const without = Object.values(opts.replay ? replayed : kept).filter(
    (c) => !(c as SavedShot).shotFile,
  ).length;
  log(
    `${without} screenshot-page captures lack their own screenshot` +
      (opts.replay ? "" : ` (${retried.count} captures taken again)`),
  );
  for (const f of failures) log(`capture failed: ${f}`);
  const ids = raters.map((p) => short(p.id));
  for (const corpus of ["tuning", "heldout"] as const) {
    const inCorpus = scores.filter((s) => s.shot.corpus === corpus);
    if (inCorpus.length === 0) continue;
    const pairs = shotPairs(inCorpus);
    const header = ["", ...ids.map((_, i) => `P${i + 1}`), "all", "ties"];
    const row = (label: string, ps: PairResult[]) => [
      label,
      ...ids.map((id) => fmt(tally(ps.filter((p) => p.persona === id)).accuracy)),
      fmt(tally(ps).accuracy),
      fmt(tally(ps).ties),
    ];
    const body = [
      ["distinct scores, intact", ...ids.map((id) => String(distinctScores(inCorpus, id).intact)), "", ""],
      ["distinct scores, all", ...ids.map((id) => String(distinctScores(inCorpus, id).all)), "", ""],
      ...SCREENSHOT_TWINS.map((d) =>
        row(
          DEGRADATION_LABELS[d],
          pairs.filter((p) => p.degradation === d),
        ),
      ),
      row("all twins", pairs),
    ];
    const pages = new Set(inCorpus.map((s) => s.shot.page)).size;
    process.stdout.write(
      `\nSCREENSHOT-ONLY, ${corpus === "tuning" ? "tuning" : "held-out"} corpus: ${pages} pages, each screenshot ` +
        `served as a page that is only that image; distinct scores per persona, then the share of pairs where the ` +
        `intact page's screenshot scored higher (a tie counts half)\n${renderTable(header, body)}\n` +
        ids.map((p, i) => `P${i + 1} = ${p}`).join(", ") +
        "\n",
    );
  }
  const figures = screenshotFigures(
    scores,
    raters.map((p) => ({ id: short(p.id), sees: sees(p) })),
  );
  writeFigures("judge-screenshots", figures, {
    judge: HEURISTIC_MODEL,
    source,
    shots: wanted.length,
    captureFailures: failures,
  });
  log(`results in ${join(BENCH_DIR, "results", "judge-screenshots.json")}`);
  return { figures, pass: figures.every((f) => f.pass !== false) && failures.length === 0 };
}
