import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type AgentBrowser,
  createHeuristicJudge,
  launchAgentBrowser,
  type PageCapture,
  PageError,
  type PersonaDevice,
} from "../src";
import { type FixtureSite, judgeTemplate, startFixtureSite } from "../src/testing";

const desktop: PersonaDevice = { kind: "desktop", viewport: { width: 1280, height: 800 }, network: "fast" };
const phone: PersonaDevice = { kind: "mobile", viewport: { width: 390, height: 844 }, network: "fast" };

let site: FixtureSite;
let browser: AgentBrowser;
const onlySite = async (url: string) => new URL(url).origin === site.origin;

beforeAll(async () => {
  site = await startFixtureSite();
  browser = await launchAgentBrowser();
});
afterAll(async () => {
  await browser?.close();
  await site?.close();
});

/** Everything but the moment, the timings and the screenshot bytes, which legitimately differ between runs. */
function reproducible(capture: PageCapture) {
  const { capturedAt, screenshot, signals, ...rest } = capture;
  const { timings, ...figures } = signals;
  return { ...rest, figures };
}

describe("capture", () => {
  it("measures the clean and the defective page, the same way twice", async () => {
    const page = await browser.open({ device: desktop, isAllowedUrl: onlySite });
    try {
      const clean = await page.visit(site.urls.clean);
      const defects = await page.visit(site.urls.defects);
      const again = await page.visit(site.urls.defects);

      expect(clean.title).toBe("Tidy Tea Shop");
      expect(clean.screenshot?.slice(1, 4)).toEqual(new Uint8Array([0x50, 0x4e, 0x47])); // "PNG"
      expect(clean.visibleText).toContain("Fresh tea, sent to your door");
      expect(clean.accessibilityTree).toContain('heading "Fresh tea, sent to your door" [level=1]');
      expect(clean.signals).toMatchObject({
        axeViolations: [],
        contrastFailures: 0,
        smallTextRatio: 0,
        smallTapTargets: 0,
        brokenImages: 0,
        consoleErrors: 0,
        imagesWithoutAlt: 0,
        unlabelledFields: 0,
        horizontalOverflow: false,
        headings: 3,
        landmarks: 4,
      });
      expect(clean.signals.readingEase).toBeGreaterThan(80);
      expect(clean.signals.timings.load).toBeGreaterThan(0);

      const s = defects.signals;
      expect(s.axeViolations.map((v) => v.id)).toEqual(
        expect.arrayContaining(["color-contrast", "image-alt", "label"]),
      );
      expect(s.axeViolations.find((v) => v.id === "label")).toMatchObject({ impact: "critical", nodes: 2 });
      expect(s.contrastFailures).toBe(2);
      expect(s.smallTextRatio).toBeGreaterThan(0.3);
      expect(s.smallTapTargets).toBe(5); // three 14 px controls and two default-height inputs
      expect(s.brokenImages).toBe(1);
      expect(s.imagesWithoutAlt).toBe(1);
      expect(s.unlabelledFields).toBe(2);
      expect(s.consoleErrors).toBeGreaterThanOrEqual(1); // the script's error, plus the 404 image's load failure
      expect(s.headings).toBe(0);
      expect(s.landmarks).toBe(0);
      expect(s.readingEase).toBeLessThan(clean.signals.readingEase ?? 0);

      expect(reproducible(again)).toEqual(reproducible(defects));
    } finally {
      await page.close();
    }
  });

  it("sees the overflow a phone viewport has and a desktop one does not", async () => {
    const page = await browser.open({ device: phone, isAllowedUrl: onlySite });
    try {
      const onPhone = await page.visit(site.urls.defects);
      expect(onPhone.viewport).toEqual({ width: 390, height: 844 });
      expect(onPhone.signals.horizontalOverflow).toBe(true);
      expect((await page.visit(site.urls.clean)).signals.horizontalOverflow).toBe(false);
    } finally {
      await page.close();
    }
    const wide = await browser.open({ device: desktop, isAllowedUrl: onlySite });
    try {
      expect((await wide.visit(site.urls.defects)).signals.horizontalOverflow).toBe(false);
    } finally {
      await wide.close();
    }
  });

  it("captures an image opened on its own in a sandboxed document, where animation frames never come", async () => {
    const page = await browser.open({ device: desktop, isAllowedUrl: onlySite, pageTimeoutMs: 20_000 });
    try {
      const started = Date.now();
      const capture = await page.visit(site.urls.sandboxedImage);
      expect(capture.finalUrl).toBe(site.urls.sandboxedImage);
      expect(capture.screenshot?.length).toBeGreaterThan(100);
      // Settling gives up on the frames quickly instead of waiting out the page timeout.
      expect(Date.now() - started).toBeLessThan(15_000);
    } finally {
      await page.close();
    }
  });

  it("loads pages at the pace of the persona's network", async () => {
    const slow = await browser.open({ device: { ...phone, network: "slow-3g" }, isAllowedUrl: onlySite });
    try {
      const { timings } = (await slow.visit(site.urls.clean)).signals;
      // Slow 3G adds 2 s of latency to the document and again to the image it loads.
      expect(timings.domContentLoaded).toBeGreaterThanOrEqual(2_000);
      expect(timings.load).toBeGreaterThanOrEqual(4_000);
    } finally {
      await slow.close();
    }
  });
});

describe("address guard, timeouts and cancellation", () => {
  it("refuses loopback targets by default and private redirect targets always", async () => {
    const guarded = await browser.open({ device: desktop });
    try {
      await expect(guarded.visit(site.urls.clean)).rejects.toMatchObject({
        code: "blocked_url",
        message: expect.stringContaining("not an allowed address"),
      });
    } finally {
      await guarded.close();
    }
    const page = await browser.open({ device: desktop, isAllowedUrl: onlySite });
    try {
      const followed = await page.visit(site.urls.redirectToClean);
      expect(followed).toMatchObject({ requestedUrl: site.urls.redirectToClean, finalUrl: site.urls.clean });
      const err = await page.visit(site.urls.redirectToPrivate).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(PageError);
      expect(err).toMatchObject({
        code: "blocked_url",
        message: expect.stringContaining(site.privateTarget),
      });
    } finally {
      await page.close();
    }
  });

  it("rates a page that has not finished loading within the budget on what loaded, the budget as its load time", async () => {
    const page = await browser.open({ device: desktop, isAllowedUrl: onlySite, pageTimeoutMs: 1_500 });
    try {
      const started = Date.now();
      const shot = await page.visit(site.urls.neverLoads);
      expect(Date.now() - started).toBeLessThan(15_000);
      expect(shot.title).toBe("Still loading");
      expect(shot.visibleText).toContain("Loading");
      expect(shot.signals.timings.load).toBeNull();
      expect(shot.signals.timings.unfinishedAfter).toBe(1_500);
      const rated = await createHeuristicJudge().rate({
        persona: {
          name: "Mobile shopper",
          role: "shopper",
          description: "",
          goals: [],
          traits: [],
          expertise: "intermediate",
          accessibilityNeeds: [],
          device: { ...phone, network: "slow-3g" },
          systemPrompt: null,
        },
        instructions: null,
        scenario: null,
        templates: [judgeTemplate("overall", { id: "overall", name: "Overall" })],
        task: { type: "SSE", capture: shot },
      });
      expect(rated.ratings.overall).toBeGreaterThanOrEqual(1);
      expect(rated.justification).toContain("had not finished loading after 1.5 s; rated on what had loaded");
    } finally {
      await page.close();
    }
  });

  it("gives up on a page that never answers, with a clear error", async () => {
    const page = await browser.open({ device: desktop, isAllowedUrl: onlySite, pageTimeoutMs: 1_500 });
    try {
      await expect(page.visit(site.urls.neverAnswers)).rejects.toMatchObject({
        code: "timeout",
        message: `${site.urls.neverAnswers} did not finish loading within 1.5 s.`,
      });
    } finally {
      await page.close();
    }
  });

  it("closes at once when the run is cancelled", async () => {
    const controller = new AbortController();
    const page = await browser.open({ device: desktop, isAllowedUrl: onlySite, signal: controller.signal });
    const visiting = page.visit(site.urls.neverLoads).catch((e: unknown) => e);
    await new Promise((r) => setTimeout(r, 300));
    const started = Date.now();
    controller.abort();
    const err = await visiting;
    const stopped = Date.now() - started;
    await page.close();
    const closed = Date.now() - started;
    expect(stopped).toBeLessThan(200);
    expect(closed).toBeLessThan(3_000);
    expect(err).toMatchObject({
      code: "aborted",
      message: "The page is closed: the run ended or was cancelled.",
    });
    await expect(page.capture()).rejects.toMatchObject({ code: "aborted" });
  });
});

describe("actions", () => {
  it("clicks, scrolls and types by accessible name, and says what it could not find", async () => {
    const page = await browser.open({ device: phone, isAllowedUrl: onlySite });
    try {
      // The page embeds an image from a private address: refused, counted as broken, and the visit goes on.
      const start = await page.visit(site.urls.flowStart);
      expect(start.signals).toMatchObject({ brokenImages: 1, consoleErrors: 0 });
      expect(await page.act({ type: "click", name: "Show details" })).toMatchObject({
        ok: true,
        detail: "clicked button 'Show details'",
      });
      expect((await page.capture()).visibleText).toContain("Every tin holds one hundred grams.");
      expect(await page.act({ type: "scroll", direction: "down" })).toMatchObject({
        ok: true,
        detail: expect.stringMatching(/^scrolled down to \d+ of \d+ px$/),
      });
      expect(await page.act({ type: "scroll", direction: "up" })).toMatchObject({ ok: true });
      expect(await page.act({ type: "scroll", direction: "up" })).toMatchObject({
        ok: false,
        detail: "already at the top of the page",
      });
      const refused = await page.act({ type: "click", name: "Staff portal" });
      expect(refused).toEqual({
        ok: false,
        detail: `clicked link 'Staff portal', but refused to go to ${site.privateTarget}: not an allowed address`,
        urlAfter: site.urls.flowStart,
      });
      expect(await page.act({ type: "click", name: "About us" })).toMatchObject({
        ok: true,
        urlAfter: site.urls.clean,
      });
      await page.visit(site.urls.flowStart);
      expect(await page.act({ type: "click", name: "continue to checkout" })).toMatchObject({
        ok: true,
        urlAfter: site.urls.flowCheckout,
      });
      expect(await page.act({ type: "type", name: "Email", text: "ann@example.com" })).toMatchObject({
        ok: true,
      });
      expect(await page.act({ type: "type", name: "Full name", text: "Ann Lee" })).toMatchObject({
        ok: true,
        detail: "typed 'Ann Lee' into field 'Full name'",
      });
      expect(await page.act({ type: "type", name: "Phone", text: "1" })).toMatchObject({
        ok: false,
        detail: "no field named 'Phone' on the page",
      });
      expect(await page.act({ type: "click", name: "Buy now", role: "button" })).toMatchObject({
        ok: false,
        detail: "no button named 'Buy now' on the page",
      });
      const placed = await page.act({ type: "click", name: "Place order" });
      expect(placed).toMatchObject({
        ok: true,
        detail: expect.stringContaining("clicked button 'Place order'"),
      });
      expect(placed.urlAfter).toContain("/flow/done?email=ann%40example.com");
      expect((await page.capture()).title).toBe("Thank you");
    } finally {
      await page.close();
    }
  });
});
