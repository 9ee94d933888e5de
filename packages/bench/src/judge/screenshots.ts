/**
 * The screenshot-only section of `pnpm bench judge` (`--screenshots <captures file>`): every captured screenshot of a
 * corpus page and of its visual twins is served again as a page that shows only that image, full width and without
 * an `alt`, as a set of pages rated by people from their screenshots is served. The DOM of all those pages is the
 * same, so whatever tells them apart comes from the screenshot. It reports how many distinct scores each persona
 * gives (one value means the judge does not see the design at all) and how often the intact page's screenshot
 * scores above its twin's.
 */
import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import type { PageCapture, PersonaDevice } from "@rubricon/agents";
import type { Figure } from "../figures";
import type { CorpusName } from "./corpus";
import type { Degradation } from "./degrade";
import { type PairResult, tally } from "./summary";

/** Twins whose damage shows in a screenshot; the others change names, width or what lies below the first screen. */
export const SCREENSHOT_TWINS: readonly Degradation[] = [
  "broken-images",
  "low-contrast",
  "tiny-text",
  "no-styles",
  "welcome-only",
  "overlap",
];

export interface SavedCapture extends PageCapture {
  fingerprint?: string;
  /** The screenshot's file in `<captures file>.shots/`. */
  shotFile?: string | null;
}

export interface ShotPage {
  /** `<page id>|<variant>|<device key>` of the capture the screenshot comes from. */
  key: string;
  page: string;
  corpus: CorpusName;
  variant: Degradation | "intact";
  device: string;
  file: string;
  /** A hash of the screenshot's bytes, when read: a twin whose screenshot equals its page's is no pair. */
  pixels?: string;
}

/** The screenshots a captures file holds for the intact pages and their visual twins. */
export function shotPages(captures: Record<string, SavedCapture>): ShotPage[] {
  const out: ShotPage[] = [];
  for (const [key, c] of Object.entries(captures)) {
    if (!c.shotFile) continue;
    const [page, variant, device] = key.split("|") as [string, string, string];
    if (variant !== "intact" && !SCREENSHOT_TWINS.includes(variant as Degradation)) continue;
    out.push({
      key,
      page,
      corpus: page.startsWith("startbootstrap-") ? "heldout" : "tuning",
      variant: variant as ShotPage["variant"],
      device,
      file: c.shotFile,
    });
  }
  return out.sort((a, b) => a.key.localeCompare(b.key));
}

/** A loopback server answering `/page/<file>` with a page that is only that screenshot, `/img/<file>` the PNG. */
export async function startShotSite(shotsDir: string): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createServer((req, res) => {
    const path = new URL(req.url ?? "/", "http://x").pathname;
    const file = path.split("/").pop() ?? "";
    if (!/^[0-9a-f]+\.png$/.test(file)) {
      res.writeHead(404, { "content-type": "text/plain" }).end("not found");
      return;
    }
    if (path.startsWith("/page/")) {
      res
        .writeHead(200, { "content-type": "text/html; charset=utf-8" })
        .end(
          `<!doctype html><html><head><meta charset="utf-8"><title>Screenshot</title></head>` +
            `<body style="margin:0"><img src="/img/${file}" style="display:block;width:100%"></body></html>`,
        );
      return;
    }
    if (path.startsWith("/img/")) {
      try {
        res.writeHead(200, { "content-type": "image/png" }).end(readFileSync(join(shotsDir, file)));
      } catch {
        res.writeHead(404, { "content-type": "text/plain" }).end("not found");
      }
      return;
    }
    res.writeHead(404, { "content-type": "text/plain" }).end("not found");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

export interface ShotScore {
  shot: ShotPage;
  persona: string;
  score: number;
}

/** Distinct scores a persona gave the intact pages' screenshots, and all screenshots. */
export function distinctScores(scores: ShotScore[], persona: string): { intact: number; all: number } {
  const mine = scores.filter((s) => s.persona === persona);
  return {
    intact: new Set(mine.filter((s) => s.shot.variant === "intact").map((s) => s.score)).size,
    all: new Set(mine.map((s) => s.score)).size,
  };
}

/** Whether two screenshot pages show the same bytes (known only once their files were hashed). */
export function sameScreenshot(a: ShotPage, b: ShotPage): boolean {
  return a.pixels !== undefined && a.pixels === b.pixels;
}

/**
 * Intact screenshot against its twin's, per page, persona and twin (same device). A twin whose screenshot is the
 * intact page's, pixel for pixel (images broken below the first screen), is left out: the two pages served are the
 * same page, as the main section leaves out twins that render exactly like their page.
 */
export function shotPairs(scores: ShotScore[]): PairResult[] {
  const at = new Map<string, ShotScore>();
  for (const s of scores) at.set(`${s.shot.page}|${s.shot.variant}|${s.shot.device}|${s.persona}`, s);
  const pairs: PairResult[] = [];
  for (const s of scores) {
    if (s.shot.variant === "intact") continue;
    const page = at.get(`${s.shot.page}|intact|${s.shot.device}|${s.persona}`);
    if (page === undefined) continue;
    if (sameScreenshot(page.shot, s.shot)) continue;
    const intact = page.score;
    pairs.push({
      corpus: s.shot.corpus,
      page: s.shot.page,
      persona: s.persona,
      degradation: s.shot.variant,
      intact,
      degraded: s.score,
    });
  }
  return pairs;
}

const round = (n: number) => Math.round(n * 1000) / 1000;

/**
 * Figures: distinct scores per corpus and persona (target more than one, except for a persona who cannot see the
 * screenshot: a page that is only an image is the same nothing to hear whatever it shows), and pairwise accuracy
 * per twin and persona, reported without a target (the targets are for pages with their DOM).
 */
export function screenshotFigures(scores: ShotScore[], personas: { id: string; sees: boolean }[]): Figure[] {
  const out: Figure[] = [];
  for (const corpus of ["tuning", "heldout"] as const) {
    const inCorpus = scores.filter((s) => s.shot.corpus === corpus);
    if (inCorpus.length === 0) continue;
    for (const p of personas) {
      const d = distinctScores(inCorpus, p.id);
      out.push({
        name: `judge.screenshots.${corpus}.distinct.intact.${p.id}`,
        value: d.intact,
        unit: "scores",
        target: p.sees ? "> 1" : null,
        pass: p.sees ? d.intact > 1 : null,
      });
      out.push({
        name: `judge.screenshots.${corpus}.distinct.all.${p.id}`,
        value: d.all,
        unit: "scores",
        target: p.sees ? "> 1" : null,
        pass: p.sees ? d.all > 1 : null,
      });
    }
    const pairs = shotPairs(inCorpus);
    const info = (name: string, ps: PairResult[]) => {
      const t = tally(ps);
      if (t.pairs === 0) return;
      out.push({ name, value: round(t.accuracy), unit: "share", target: null, pass: null });
    };
    info(`judge.screenshots.${corpus}.accuracy`, pairs);
    out.push({
      name: `judge.screenshots.${corpus}.ties`,
      value: round(tally(pairs).ties),
      unit: "share",
      target: null,
      pass: null,
    });
    for (const d of SCREENSHOT_TWINS) {
      const ofD = pairs.filter((p) => p.degradation === d);
      info(`judge.screenshots.${corpus}.accuracy.${d}`, ofD);
      for (const p of personas)
        info(
          `judge.screenshots.${corpus}.accuracy.${d}.${p.id}`,
          ofD.filter((x) => x.persona === p.id),
        );
    }
    for (const p of personas)
      info(
        `judge.screenshots.${corpus}.accuracy.all.${p.id}`,
        pairs.filter((x) => x.persona === p.id),
      );
  }
  return out;
}

/** The device a screenshot was taken on, from the personas' devices. */
export function deviceFor(key: string, devices: PersonaDevice[]): PersonaDevice | undefined {
  return devices.find((d) => `${d.kind}:${d.viewport.width}x${d.viewport.height}` === key);
}
