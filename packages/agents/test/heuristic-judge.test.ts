import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type AgentBrowser,
  createHeuristicJudge,
  HEURISTIC_MODEL_V1,
  launchAgentBrowser,
  type PageCapture,
  type PageSignals,
  type Persona,
  type PersonaDevice,
  quality,
  sxsScore,
} from "../src";
import { type FixtureSite, judgeTemplate, startFixtureSite } from "../src/testing";

const OVERALL = judgeTemplate("overall");
const USABILITY = judgeTemplate("usability");
const ACCESSIBILITY = judgeTemplate("accessibility", { scaleMax: 5 });
const CONTENT = judgeTemplate("content");
const CUSTOM = judgeTemplate("checkout-clarity", { sourceBuiltInId: null });
const TEMPLATES = [OVERALL, USABILITY, ACCESSIBILITY, CONTENT, CUSTOM];

const desktop: PersonaDevice = { kind: "desktop", viewport: { width: 1280, height: 800 }, network: "fast" };
const phone: PersonaDevice = { kind: "mobile", viewport: { width: 390, height: 844 }, network: "slow-4g" };

function persona(overrides: Partial<Persona> = {}): Persona {
  return {
    name: "Sam",
    role: "shopper",
    description: "",
    goals: [],
    traits: [],
    expertise: "intermediate",
    accessibilityNeeds: [],
    device: desktop,
    systemPrompt: null,
    ...overrides,
  };
}

const PERSONAS: Record<string, Persona> = {
  baseline: persona(),
  screenReader: persona({ accessibilityNeeds: ["screen-reader"] }),
  lowVision: persona({ accessibilityNeeds: ["low-vision"] }),
  mobileSlow: persona({ device: phone }),
  novice: persona({ expertise: "novice" }),
};

// These pin the v1 formulas, which ratings stored before v2 carry; heuristic-v2.test.ts covers the current judge.
const judge = createHeuristicJudge({ model: HEURISTIC_MODEL_V1 });
const rateSse = (capture: PageCapture, who: Persona, templates = TEMPLATES) =>
  judge.rate({ persona: who, instructions: null, scenario: null, templates, task: { type: "SSE", capture } });

const perfect: PageSignals = {
  axeViolations: [],
  contrastFailures: 0,
  smallTextRatio: 0,
  smallTapTargets: 0,
  interactiveElements: 6,
  readingEase: 75,
  wordCount: 300,
  horizontalOverflow: false,
  timings: { domContentLoaded: 300, load: 500, largestContentfulPaint: 600 },
  brokenImages: 0,
  consoleErrors: 0,
  imagesWithoutAlt: 0,
  unlabelledFields: 0,
  headings: 4,
  landmarks: 3,
};
const captureOf = (signals: Partial<PageSignals>): PageCapture => ({
  requestedUrl: "https://shop.example.com/",
  finalUrl: "https://shop.example.com/",
  title: "Shop",
  screenshot: null,
  visibleText: "",
  accessibilityTree: "",
  signals: { ...perfect, ...signals },
  viewport: { width: 1280, height: 800 },
  capturedAt: "2026-11-23T00:00:00.000Z",
});

describe("heuristic-v1 formulas", () => {
  it("gives a flawless page the top of every scale and says it is a measurement, not a model", async () => {
    const result = await rateSse(captureOf({}), PERSONAS.baseline!);
    expect(result.ratings).toEqual({
      tpl_overall: 7,
      tpl_usability: 7,
      tpl_accessibility: 5,
      tpl_content: 7,
      "tpl_checkout-clarity": 7,
    });
    expect(result).toMatchObject({ judge: "heuristic", model: "heuristic-v1", usage: { costUsd: 0 } });
    expect(result.justification).toMatch(/^Heuristic measurement, not a model/);
    expect(result.justification).toContain(
      'no page measure for "checkout-clarity"; rated with the overall formula',
    );
    expect(result.evidence).toContain("no axe-core violations");
  });

  it("weighs what each persona depends on", async () => {
    const a11yOnly = captureOf({
      axeViolations: [
        { id: "button-name", impact: "critical", nodes: 6, help: "Buttons must have discernible text" },
      ],
      unlabelledFields: 3,
    });
    const overall = [OVERALL];
    const base = (await rateSse(a11yOnly, PERSONAS.baseline!, overall)).ratings.tpl_overall!;
    const reader = await rateSse(a11yOnly, PERSONAS.screenReader!, overall);
    expect(reader.ratings.tpl_overall).toBeLessThan(base);
    expect(reader.justification).toContain("Weighted for: screen-reader user.");
    expect(reader.evidence[0]).toBe("1 critical axe violation: button-name (6 nodes)");

    // The rounded ratings can tie; the quality behind them must not.
    const q = (c: PageCapture, who: Persona) => quality(c.signals, OVERALL, who).quality;
    const faint = captureOf({ contrastFailures: 12, smallTextRatio: 0.4 });
    expect(q(faint, PERSONAS.lowVision!)).toBeLessThan(q(faint, PERSONAS.baseline!) - 0.1);
    const cramped = captureOf({
      smallTapTargets: 14,
      horizontalOverflow: true,
      timings: { domContentLoaded: 3000, load: 5200, largestContentfulPaint: 5000 },
    });
    expect(q(cramped, PERSONAS.mobileSlow!)).toBeLessThan(q(cramped, PERSONAS.baseline!) - 0.1);
    const dense = captureOf({ readingEase: 5 });
    expect(q(dense, PERSONAS.novice!)).toBeLessThan(q(dense, PERSONAS.baseline!) - 0.05);
    // A need weighs only what it depends on: contrast problems do not move a screen-reader user's figure down.
    expect(q(faint, PERSONAS.screenReader!)).toBeGreaterThan(q(faint, PERSONAS.baseline!));
  });

  it("maps SxS differences to -3..+3 with a dead zone for about the same", () => {
    expect(sxsScore(0.8, 0.83)).toBe(0);
    expect(sxsScore(0.8, 0.9)).toBe(1);
    expect(sxsScore(0.8, 0.6)).toBe(-2);
    expect(sxsScore(0.9, 0.3)).toBe(-3);
    expect(sxsScore(0.2, 0.9)).toBe(3);
  });

  it("is deterministic", async () => {
    const c = captureOf({ contrastFailures: 3, smallTapTargets: 2 });
    expect(await rateSse(c, PERSONAS.lowVision!)).toEqual(await rateSse(c, PERSONAS.lowVision!));
  });
});

describe("heuristic-v1 on real captures", () => {
  let site: FixtureSite;
  let browser: AgentBrowser;
  const captures: Record<string, PageCapture> = {};

  beforeAll(async () => {
    site = await startFixtureSite();
    browser = await launchAgentBrowser();
    const onlySite = async (url: string) => new URL(url).origin === site.origin;
    for (const [device, name] of [
      [desktop, "desktop"],
      [phone, "phone"],
    ] as const) {
      const page = await browser.open({ device, isAllowedUrl: onlySite });
      captures[`${name}-clean`] = await page.visit(site.urls.clean);
      captures[`${name}-defects`] = await page.visit(site.urls.defects);
      await page.close();
    }
  });
  afterAll(async () => {
    await browser?.close();
    await site?.close();
  });

  it("rates the clean page above the defective one for every persona, naming the defects", async () => {
    for (const [name, who] of Object.entries(PERSONAS)) {
      const device = who.device.kind === "mobile" ? "phone" : "desktop";
      const clean = await rateSse(captures[`${device}-clean`]!, who);
      const defects = await rateSse(captures[`${device}-defects`]!, who);
      for (const t of [ACCESSIBILITY, USABILITY, OVERALL]) {
        expect(clean.ratings[t.id], `${name} ${t.id}`).toBeGreaterThan(defects.ratings[t.id]!);
      }
      expect(defects.evidence).toEqual(
        expect.arrayContaining([
          expect.stringMatching(/^2 critical axe violations: image-alt \(1 node\), label \(2 nodes\)$/),
          "2 text elements below WCAG AA contrast",
          "1 image without a text alternative",
          "2 form fields without a label",
          "1 broken image",
          expect.stringMatching(/tap targets smaller than 24×24 px/),
        ]),
      );
    }
    const onPhone = await rateSse(captures["phone-defects"]!, PERSONAS.mobileSlow!);
    expect(onPhone.evidence).toContain("the page is wider than the viewport (horizontal scrolling)");
  });

  it("prefers the clean side in a side-by-side, whichever side it is on", async () => {
    const sxs = (sideA: PageCapture, sideB: PageCapture) =>
      judge.rate({
        persona: PERSONAS.screenReader!,
        instructions: null,
        scenario: null,
        templates: [OVERALL, ACCESSIBILITY],
        task: { type: "SxS", sideA, sideB },
      });
    const cleanOnB = await sxs(captures["desktop-defects"]!, captures["desktop-clean"]!);
    expect(cleanOnB.ratings.tpl_accessibility).toBe(3);
    expect(cleanOnB.ratings.tpl_overall).toBeGreaterThan(0);
    expect(cleanOnB.justification).toContain("B much better");
    expect(cleanOnB.evidence).toContain("A: 2 form fields without a label");
    const cleanOnA = await sxs(captures["desktop-clean"]!, captures["desktop-defects"]!);
    expect(cleanOnA.ratings.tpl_accessibility).toBe(-3);
    const same = await sxs(captures["desktop-clean"]!, captures["desktop-clean"]!);
    expect(same.ratings).toEqual({ tpl_overall: 0, tpl_accessibility: 0 });
  });
});
