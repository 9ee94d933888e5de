import { describe, expect, it } from "vitest";
import {
  APPEAL_FIT,
  createHeuristicJudge,
  crossValidate,
  featureValues,
  fitRidge,
  type PageCapture,
  type PageSignals,
  type Persona,
  type PersonaDevice,
  predictedRating,
  spearman,
  type VisualSignals,
} from "../src";
import FITTED from "../src/judge/appeal/appeal-fit.json";
import { judgeTemplate } from "../src/testing";

const desktop: PersonaDevice = { kind: "desktop", viewport: { width: 1280, height: 800 }, network: "fast" };
const phone: PersonaDevice = { kind: "mobile", viewport: { width: 390, height: 844 }, network: "slow-3g" };
const persona = (name: string, p: Partial<Persona>): Persona => ({
  name,
  role: name,
  description: "",
  goals: [],
  traits: [],
  expertise: "intermediate",
  accessibilityNeeds: [],
  device: desktop,
  systemPrompt: null,
  ...p,
});
const PERSONAS: Persona[] = [
  persona("First-time visitor", { expertise: "novice" }),
  persona("Power user", { expertise: "expert" }),
  persona("Screen-reader user", { accessibilityNeeds: ["screen-reader", "keyboard-only"] }),
  persona("Older adult with low vision", {
    expertise: "novice",
    accessibilityNeeds: ["low-vision", "motor"],
  }),
  persona("Mobile shopper on a slow network", { device: phone }),
  persona("Accessibility auditor", {
    expertise: "expert",
    accessibilityNeeds: ["screen-reader", "low-vision", "color-blindness", "keyboard-only"],
  }),
];
const OVERALL = judgeTemplate("overall", { name: "Overall", question: "How good is this page overall?" });

/** A plainly designed page's screenshot: moderate colour and complexity, room around things, readable text. */
const DESIGNED: VisualSignals = {
  colourfulness: 18,
  edgeDensity: 0.05,
  whitespace: 0.62,
  balance: 0.85,
  symmetry: 0.45,
  bytesPerPixel: 0.3,
  quadtreeDensity: 7,
  figureGround: 0.32,
  dominantColours: 5,
  alignment: 0.7,
  pictureShare: 0.06,
  surfaceShare: 0.25,
  defaultLinkInk: 0.0002,
  glyphHeight: 10,
};

/**
 * The short checkout page people reported: 27 words, five labelled fields and a button, an image whose file fails
 * to load but whose alt text says what it shows, one link in the default blue.
 */
function checkout(): PageSignals {
  return {
    axeViolations: [],
    axeChecked: true,
    contrastFailures: 0,
    smallTextRatio: 0,
    smallTapTargets: 0,
    interactiveElements: 7,
    readingEase: 70,
    wordCount: 27,
    horizontalOverflow: false,
    timings: { domContentLoaded: 300, load: 600, largestContentfulPaint: 700 },
    brokenImages: 1,
    consoleErrors: 0,
    imagesWithoutAlt: 0,
    unlabelledFields: 0,
    formFields: 5,
    headings: 1,
    landmarks: 2,
    rendering: {
      images: { total: 1, loaded: 0, failed: 1, failedAreaShare: 1 },
      styles: {
        stylesheetRules: 40,
        defaultFontShare: 0,
        defaultLinkShare: 1,
        bodyMargin8: false,
        decoratedShare: 0.3,
        elements: 30,
      },
      firstScreenCoverage: 0.45,
      ownContent: { coverage: 0.4, words: 27 },
      text: { chars: 160, medianSize: 16, smallShare: 0, tinyShare: 0 },
      contrast: { measuredChars: 160, below45Share: 0, below3Share: 0, below2Share: 0 },
      layout: {
        overflowRatio: 1,
        overlappingTextShare: 0,
        hiddenShare: 0,
        firstScreenControls: 7,
        obscuredControls: 0,
      },
      controls: {
        total: 2,
        unnamed: 0,
        fields: 5,
        positiveTabindex: 0,
        visibleFields: 5,
        visibleUnlabelled: 0,
      },
    },
    visual: DESIGNED,
  };
}

/** Every defect at once: nothing named, faint tiny text, broken images, no styles, wider than the screen, slow. */
function everyDefect(): PageSignals {
  const s = checkout();
  return {
    ...s,
    axeViolations: [{ id: "label", impact: "critical", nodes: 12, help: "Form elements must have labels" }],
    contrastFailures: 40,
    smallTextRatio: 0.9,
    smallTapTargets: 7,
    wordCount: 4,
    timings: { domContentLoaded: 9000, load: 16000, largestContentfulPaint: 15000 },
    consoleErrors: 6,
    imagesWithoutAlt: 1,
    unlabelledFields: 5,
    rendering: {
      ...s.rendering!,
      styles: {
        stylesheetRules: 0,
        defaultFontShare: 1,
        defaultLinkShare: 1,
        bodyMargin8: true,
        decoratedShare: 0,
        elements: 30,
      },
      firstScreenCoverage: 0.05,
      ownContent: { coverage: 0.04, words: 4 },
      text: { chars: 60, medianSize: 8, smallShare: 1, tinyShare: 0.9 },
      contrast: { measuredChars: 60, below45Share: 1, below3Share: 1, below2Share: 0.9 },
      layout: {
        overflowRatio: 1.8,
        overlappingTextShare: 0.3,
        hiddenShare: 0.2,
        firstScreenControls: 7,
        obscuredControls: 5,
      },
      controls: {
        total: 2,
        unnamed: 2,
        fields: 5,
        positiveTabindex: 3,
        visibleFields: 5,
        visibleUnlabelled: 5,
      },
    },
    visual: {
      ...DESIGNED,
      colourfulness: 0,
      edgeDensity: 0.002,
      whitespace: 0.98,
      figureGround: 0.1,
      glyphHeight: 5,
    },
  };
}

const capture = (signals: PageSignals, device = desktop): PageCapture => ({
  requestedUrl: "https://shop.example/checkout",
  finalUrl: "https://shop.example/checkout",
  title: "Checkout",
  screenshot: null,
  visibleText: "",
  accessibilityTree: "",
  signals,
  viewport: device.viewport,
  capturedAt: "2026-12-06T12:00:00.000Z",
});

/** A screen-reader user without sight, who does not see the page. */
const blind = (who: Persona) =>
  who.accessibilityNeeds.includes("screen-reader") && !who.accessibilityNeeds.includes("low-vision");

const judge = createHeuristicJudge();
const rate = (signals: PageSignals, who: Persona) =>
  judge.rate({
    persona: who,
    instructions: null,
    scenario: null,
    templates: [OVERALL],
    task: { type: "SSE", capture: capture(signals, who.device) },
  });

describe("an honest scale (heuristic-v15)", () => {
  it("keeps a short, accessible page with one failed, described image in the upper half and above a page with every defect", async () => {
    for (const who of PERSONAS) {
      const good = (await rate(checkout(), who)).ratings[OVERALL.id]!;
      const bad = (await rate(everyDefect(), who)).ratings[OVERALL.id]!;
      expect(good, who.name).toBeGreaterThanOrEqual(4);
      expect(good, who.name).toBeGreaterThan(bad);
      expect(bad, who.name).toBeLessThanOrEqual(2);
    }
  });

  it("costs a screen-reader user little for an image that failed with a text alternative, a sighted reader a point or two", async () => {
    const intact = checkout();
    intact.brokenImages = 0;
    intact.rendering = {
      ...intact.rendering!,
      images: { total: 1, loaded: 1, failed: 0, failedAreaShare: 0 },
    };
    for (const who of PERSONAS) {
      const whole = (await rate(intact, who)).ratings[OVERALL.id]!;
      const failed = (await rate(checkout(), who)).ratings[OVERALL.id]!;
      const cost = whole - failed;
      expect(cost, who.name).toBeGreaterThanOrEqual(0);
      expect(cost, who.name).toBeLessThanOrEqual(blind(who) ? 1 : 2);
    }
  });

  it("does not hold a short, complete form down for being short", async () => {
    const reader = PERSONAS[2]!;
    const result = await rate(checkout(), reader);
    expect(result.evidence.join(" ")).not.toContain("almost nothing to hear");
  });

  it("leads the explanation with a few plain sentences, then each measurement once", async () => {
    for (const who of PERSONAS) {
      const result = await rate(checkout(), who);
      const text = result.justification;
      expect(text).toMatch(/^Rated Overall \d of 7\./);
      const [lead, rest] = text.split(" Measurements: ");
      expect(rest, who.name).toBeDefined();
      expect(text.split("Measurements:").length).toBe(2);
      const sentences = lead!.split(/(?<=\.) (?=[A-Z])/);
      expect(sentences.length, who.name).toBeLessThanOrEqual(4); // the score, then one to three on what drove it
      expect(lead).toContain("1 image failed to load".replace("1 image", "the page's one image"));
      expect(text).not.toMatch(/all 1 images/);
      const facts = rest!.split("; ").map((f) => f.replace(/\. Heuristic.*$/, ""));
      for (const f of facts) expect(text.split(f).length - 1, f).toBe(1);
      expect(text.length, who.name).toBeLessThan(1600);
    }
  });
});

describe("the fitted sense of design", () => {
  it("predicts from the coefficients in appeal-fit.json, deterministically", () => {
    expect(FITTED.pages).toBe(300);
    expect(FITTED.k).toBe(10);
    expect(FITTED.folds).toHaveLength(10);
    expect(FITTED.crossValidatedSpearman).toBeGreaterThan(0.5);
    const row = featureValues(DESIGNED);
    let expected = FITTED.intercept;
    row.forEach((x, j) => {
      if (x === null) return;
      const t = FITTED.coefficients[j]! * ((x - FITTED.mean[j]!) / FITTED.sd[j]!);
      expected += FITTED.features[j] === "figureGround" ? Math.min(0, t) : t;
    });
    expect(predictedRating(APPEAL_FIT, DESIGNED)).toBeCloseTo(expected, 3);
    expect(predictedRating(APPEAL_FIT, DESIGNED)).toBe(predictedRating(APPEAL_FIT, { ...DESIGNED }));
  });

  it("fits a ridge model that recovers a known ordering and cross-validates out of fold", () => {
    // Synthetic screenshots whose "rating" falls with colourfulness and rises with whitespace.
    const shots: VisualSignals[] = [];
    const ratings: number[] = [];
    for (let i = 0; i < 60; i++) {
      const v = { ...DESIGNED, colourfulness: (i * 37) % 60, whitespace: ((i * 13) % 50) / 60 + 0.2 };
      shots.push(v);
      ratings.push(5 - 0.03 * v.colourfulness + 2 * v.whitespace + ((i * 7) % 5) * 0.01);
    }
    const rows = shots.map(featureValues);
    const fit = fitRidge(rows, ratings, 1);
    const predicted = shots.map((v) => predictedRating(fit, v));
    expect(spearman(predicted, ratings)).toBeGreaterThan(0.95);
    const a = crossValidate(rows, ratings, 5, [1, 10]);
    const b = crossValidate(rows, ratings, 5, [1, 10]);
    expect(a.spearman).toBe(b.spearman);
    expect(a.spearman).toBeGreaterThan(0.9);
    expect(a.folds).toHaveLength(5);
  });

  it("ranks designs the same way for every sighted persona on a page that is one picture", async () => {
    const picture = (v: VisualSignals): PageSignals => ({
      ...checkout(),
      wordCount: 0,
      interactiveElements: 0,
      brokenImages: 0,
      imagesWithoutAlt: 1,
      formFields: 0,
      rendering: {
        ...checkout().rendering!,
        images: { total: 1, loaded: 1, failed: 0, failedAreaShare: 0 },
        ownContent: { coverage: 1, words: 0 },
        firstScreenCoverage: 1,
        text: { chars: 0, medianSize: null, smallShare: 0, tinyShare: 0 },
        contrast: { measuredChars: 0, below45Share: 0, below3Share: 0, below2Share: 0 },
        controls: { total: 0, unnamed: 0, fields: 0, positiveTabindex: 0 },
      },
      visual: v,
    });
    const liked = { ...DESIGNED };
    const disliked = {
      ...DESIGNED,
      edgeDensity: 0.2,
      quadtreeDensity: 40,
      whitespace: 0.1,
      dominantColours: 1,
    };
    expect(predictedRating(APPEAL_FIT, liked)).toBeGreaterThan(predictedRating(APPEAL_FIT, disliked));
    for (const who of PERSONAS.filter(
      (p) => !p.accessibilityNeeds.includes("screen-reader") || p.accessibilityNeeds.includes("low-vision"),
    )) {
      const a = (await rate(picture(liked), who)).ratings[OVERALL.id]!;
      const b = (await rate(picture(disliked), who)).ratings[OVERALL.id]!;
      expect(a, who.name).toBeGreaterThanOrEqual(b);
    }
  });
});
