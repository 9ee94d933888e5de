import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type AgentBrowser,
  createHeuristicJudge,
  isPicture,
  launchAgentBrowser,
  type PageCapture,
  type Persona,
  type PersonaDevice,
  qualityV2,
  screenshotMeasures,
  type VisualSignals,
  visualAppeal,
  visualSignals,
} from "../src";
import { judgeTemplate } from "../src/testing";

/**
 * v15: a page that is one picture has its look measured on the picture at its natural size, so a phone, which shows
 * a 1024 px design shrunk to 390 px, judges the same design from the same pixels as a desktop does.
 */

/** A designed page, captured at 1024 × 768 to make the picture (as the rated screenshots were taken). */
const DESIGN = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Design</title><style>
body { margin: 0; font: 15px/1.5 sans-serif; color: #222; background: #fafaf7; }
header { display: flex; gap: 28px; align-items: center; padding: 18px 48px; background: #1f3b4d; color: #fff; }
header b { font-size: 22px; margin-right: auto; }
.hero { display: grid; grid-template-columns: 1fr 1fr; gap: 40px; padding: 40px 48px; }
h1 { font-size: 34px; line-height: 1.2; margin: 0 0 16px; }
.art { height: 260px; border-radius: 8px; background: linear-gradient(135deg, #e07a3f, #7a3fe0 60%, #3fb0e0); }
.cards { display: grid; grid-template-columns: repeat(3, 1fr); gap: 24px; padding: 0 48px; }
.cards div { background: #fff; border: 1px solid #ddd; border-radius: 6px; padding: 16px; }
.cta { display: inline-block; margin-top: 12px; padding: 10px 18px; background: #e07a3f; color: #fff; border-radius: 4px; }
</style></head><body>
<header><b>Harbour Lights</b><span>Rooms</span><span>Dining</span><span>Events</span><span>Contact</span></header>
<section class="hero"><div><h1>A quiet hotel on the old harbour wall</h1>
<p>Twenty rooms looking out over the water, a kitchen that buys from the boats each morning and a bar that stays
open as long as the conversation does. Book directly for the best rate and a late checkout.</p>
<span class="cta">Check availability</span></div><div class="art"></div></section>
<section class="cards"><div><h3>Rooms</h3><p>Sea views from every window, linen from the mill up the valley.</p></div>
<div><h3>Dining</h3><p>Fish from the morning boats, vegetables from the walled garden.</p></div>
<div><h3>Events</h3><p>Weddings for up to eighty guests in the sail loft.</p></div></section>
</body></html>`;

/** The page the people bench serves: only the picture, full width. */
const PICTURE_PAGE =
  `<!doctype html><html><head><meta charset="utf-8"><title>Screenshot</title></head>` +
  `<body style="margin:0"><img src="/picture.png" style="display:block;width:100%"></body></html>`;

const desktop: PersonaDevice = { kind: "desktop", viewport: { width: 1280, height: 800 }, network: "fast" };
const phone: PersonaDevice = { kind: "mobile", viewport: { width: 390, height: 844 }, network: "fast" };
const picturePlace: PersonaDevice = {
  kind: "desktop",
  viewport: { width: 1024, height: 768 },
  network: "fast",
};

const persona = (name: string, device: PersonaDevice): Persona => ({
  name,
  role: "visitor",
  description: "",
  goals: [],
  traits: [],
  expertise: "intermediate",
  accessibilityNeeds: [],
  device,
  systemPrompt: null,
});
const OVERALL = judgeTemplate("overall", {
  id: "overall",
  name: "Overall",
  question: "How good is this page overall?",
});

/** The appeal model's measures, and how far two readings of the same picture may differ. */
const MEASURES: [keyof VisualSignals, number][] = [
  ["colourfulness", 0.5],
  ["edgeDensity", 0.002],
  ["whitespace", 0.01],
  ["balance", 0.01],
  ["symmetry", 0.01],
  ["figureGround", 0.01],
  ["alignment", 0.01],
  ["quadtreeDensity", 1],
  ["dominantColours", 0],
  ["pictureShare", 0.01],
  ["surfaceShare", 0.01],
  ["glyphHeight", 0.2],
];

let server: Server;
let origin: string;
let browser: AgentBrowser;
let png: Uint8Array;
const captures: Record<string, PageCapture> = {};

beforeAll(async () => {
  let picture: Uint8Array | null = null;
  server = createServer((req, res) => {
    if (req.url === "/design") res.writeHead(200, { "content-type": "text/html" }).end(DESIGN);
    else if (req.url === "/page") res.writeHead(200, { "content-type": "text/html" }).end(PICTURE_PAGE);
    else if (req.url === "/picture.png" && picture)
      res.writeHead(200, { "content-type": "image/png" }).end(picture);
    else res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  browser = await launchAgentBrowser();
  const isAllowedUrl = async (url: string) => new URL(url).origin === origin;
  const maker = await browser.open({ device: picturePlace, isAllowedUrl });
  png = (await maker.visit(`${origin}/design`)).screenshot!;
  await maker.close();
  picture = png;
  for (const [name, device] of [
    ["desktop", desktop],
    ["phone", phone],
  ] as const) {
    const page = await browser.open({ device, isAllowedUrl });
    captures[name] = await page.visit(`${origin}/page`);
    await page.close();
  }
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => server?.close(resolve));
});

describe("a page that is one picture is measured on the picture at its natural size (v15)", () => {
  it("reads the picture's own 1024 × 768 pixels on a desktop and on a phone", () => {
    for (const name of ["desktop", "phone"]) {
      const c = captures[name]!;
      expect(isPicture(c.signals), name).toBe(true);
      expect(c.signals.visual!.picture, name).toEqual({
        naturalWidth: 1024,
        naturalHeight: 768,
        width: 1024,
        height: 768,
      });
    }
  });

  it("gives the phone the same appeal measures as the desktop and as the picture itself, within tolerance", () => {
    const itself = visualSignals(png);
    const d = captures.desktop!.signals.visual!;
    const p = captures.phone!.signals.visual!;
    for (const [key, tolerance] of MEASURES) {
      const want = itself[key] as number;
      expect(typeof want, key).toBe("number");
      expect(Math.abs((d[key] as number) - want), `desktop ${key}`).toBeLessThanOrEqual(tolerance);
      expect(Math.abs((p[key] as number) - want), `phone ${key}`).toBeLessThanOrEqual(tolerance);
    }
    expect(Math.abs(visualAppeal(p).appeal - visualAppeal(d).appeal)).toBeLessThanOrEqual(0.02);
    expect(Math.abs(visualAppeal(p).appeal - visualAppeal(itself).appeal)).toBeLessThanOrEqual(0.02);
  });

  it("where the phone's own screenshot shows the design shrunk: its text reads far smaller there", () => {
    const c = captures.phone!;
    const shown = screenshotMeasures(c.screenshot!, c.viewport.width)!;
    const natural = c.signals.visual!.glyphHeight!;
    expect(natural).toBeGreaterThan(8.5);
    // Shrunk to 390 px the design's strokes are too short to count, or well under what the picture draws.
    expect(shown.glyphHeight ?? 0).toBeLessThan(0.7 * natural);
  });

  it("so the picture's own text raises no small-text gate on the phone, and both devices rate the design alike", async () => {
    const judge = createHeuristicJudge();
    const scores: number[] = [];
    for (const [name, device] of [
      ["desktop", desktop],
      ["phone", phone],
    ] as const) {
      const who = persona(name, device);
      const gates = qualityV2(captures[name]!.signals, OVERALL, who).gates;
      expect(
        gates.filter((g) => g.name === "readability"),
        name,
      ).toEqual([]);
      const result = await judge.rate({
        persona: who,
        instructions: null,
        scenario: null,
        templates: [OVERALL],
        task: { type: "SSE", capture: captures[name]! },
      });
      expect(result.evidence[0], name).toMatch(
        /^the page is one picture, so its design is judged from the picture at its natural size \(1024 × 768 px\)/,
      );
      scores.push(result.ratings.overall!);
    }
    expect(scores[1]).toBe(scores[0]);
  });
});
