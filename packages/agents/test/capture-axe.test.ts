import AxeBuilder from "@axe-core/playwright";
import { type Browser, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_CHROMIUM_PATH } from "../src";
import { axeViolations } from "../src/browser/capture";
import { type FixtureSite, startFixtureSite } from "../src/testing";

let site: FixtureSite;
let browser: Browser;

beforeAll(async () => {
  site = await startFixtureSite();
  browser = await chromium.launch({
    executablePath: DEFAULT_CHROMIUM_PATH,
    args: ["--no-sandbox", "--disable-background-networking"],
  });
});
afterAll(async () => {
  await browser?.close();
  await site?.close();
});

/** Every violation with the nodes it names, in a stable order. */
async function violations(builder: AxeBuilder) {
  const results = await builder.analyze();
  return results.violations
    .map((v) => ({
      id: v.id,
      impact: v.impact,
      targets: v.nodes.map((n) => JSON.stringify(n.target)).sort(),
    }))
    .sort((a, b) => a.id.localeCompare(b.id));
}

/** The capture's accessibility check of `page`, and the tabs it opened in the page's context meanwhile. */
async function checkCountingTabs(page: Page) {
  let opened = 0;
  const onPage = () => opened++;
  page.context().on("page", onPage);
  try {
    return { found: await axeViolations(page), opened };
  } finally {
    page.context().off("page", onPage);
  }
}

describe("accessibility checks in a capture", () => {
  // Generous: axe's source is injected several times over, on a machine that may be busy.
  it("find on a page without frames, in the page itself, what axe's merging path finds", {
    timeout: 300_000,
  }, async () => {
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      let total = 0;
      for (const url of [site.urls.defects, site.urls.clean]) {
        await page.goto(url, { waitUntil: "load" });
        expect(page.frames()).toHaveLength(1);
        const merged = await violations(new AxeBuilder({ page }));
        const inPage = await violations(new AxeBuilder({ page }).setLegacyMode());
        expect(inPage).toEqual(merged);
        total += merged.length;
      }
      expect(total).toBeGreaterThan(3);
      await page.goto(site.urls.defects, { waitUntil: "load" });
      const { found, opened } = await checkCountingTabs(page);
      expect(opened).toBe(0);
      expect(found.map((v) => v.id)).toEqual(
        expect.arrayContaining(["color-contrast", "image-alt", "label"]),
      );
    } finally {
      await context.close();
    }
  });

  it("keep every rule's violations with their node counts, as a full axe run reports them", {
    timeout: 300_000,
  }, async () => {
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      const cdp = await context.newCDPSession(page);
      let total = 0;
      for (const url of [site.urls.defects, site.urls.clean, site.urls.flowStart, site.urls.flowCheckout]) {
        await page.goto(url, { waitUntil: "load" });
        // Every result type, with selectors: what a capture kept before it asked axe for violations alone.
        const full = (await new AxeBuilder({ page }).setLegacyMode().analyze()).violations
          .map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.length, help: v.help }))
          .sort((a, b) => a.id.localeCompare(b.id));
        expect(await axeViolations(page, cdp)).toEqual(full);
        expect(await axeViolations(page)).toEqual(full);
        total += full.reduce((n, v) => n + v.nodes, 0);
      }
      expect(total).toBeGreaterThan(3);
    } finally {
      await context.close();
    }
  });

  it("check a page with frames through axe's merging path, which reaches into every frame", {
    timeout: 300_000,
  }, async () => {
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      await page.goto(site.urls.clean, { waitUntil: "load" });
      await page.evaluate(
        (src) =>
          new Promise<void>((resolve) => {
            const frame = document.createElement("iframe");
            frame.title = "Offer";
            frame.src = src;
            frame.onload = () => resolve();
            document.body.append(frame);
          }),
        site.urls.defects,
      );
      expect(page.frames()).toHaveLength(2);
      // Which path ran is what is checked: the merging path gives each frame one second to take axe's source,
      // so on a busy machine a frame's findings can be missing from its answer.
      const { opened } = await checkCountingTabs(page);
      expect(opened).toBe(1);
    } finally {
      await context.close();
    }
  });
});
