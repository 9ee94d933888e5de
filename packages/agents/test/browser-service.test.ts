import { execFileSync } from "node:child_process";
import { chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchAgentBrowser, type PersonaDevice } from "../src";
import { type FixtureSite, startFixtureSite } from "../src/testing";

// Each test here needs a browser of its own (one it crashes, one behind a WebSocket service).

const desktop: PersonaDevice = { kind: "desktop", viewport: { width: 1280, height: 800 }, network: "fast" };
const phone: PersonaDevice = { kind: "mobile", viewport: { width: 390, height: 844 }, network: "fast" };

let site: FixtureSite;
const onlySite = async (url: string) => new URL(url).origin === site.origin;

beforeAll(async () => {
  site = await startFixtureSite();
});
afterAll(async () => {
  await site?.close();
});

/** Kills the browser this test process started last, as a crash would. */
function killNewestChromium(): void {
  const children = execFileSync("ps", [
    "-o",
    "pid=,comm=",
    "--ppid",
    String(process.pid),
    "--sort=-start_time",
  ])
    .toString()
    .trim()
    .split("\n")
    .map((line) => line.trim().split(/\s+/));
  const newest = children.find(([, comm]) => comm?.startsWith("chromium"));
  if (!newest) throw new Error("no chromium started by this test");
  process.kill(Number(newest[0]), "SIGKILL");
}

describe("the shared browser", () => {
  it("drives a remote browser service through its WebSocket endpoint", async () => {
    const service = await chromium.launchServer({
      executablePath: "/usr/bin/chromium",
      args: ["--no-sandbox", "--disable-background-networking"],
    });
    try {
      const remote = await launchAgentBrowser({ wsEndpoint: service.wsEndpoint() });
      const page = await remote.open({ device: phone, isAllowedUrl: onlySite });
      const capture = await page.visit(site.urls.defects);
      expect(capture.signals).toMatchObject({ horizontalOverflow: true, unlabelledFields: 2 });
      await expect(page.visit(site.urls.redirectToPrivate)).rejects.toMatchObject({ code: "blocked_url" });
      await remote.close();
    } finally {
      await service.close();
    }
  });

  it("starts again after a crash, so the next run still gets a page", async () => {
    const own = await launchAgentBrowser();
    try {
      const first = await own.open({ device: desktop, isAllowedUrl: onlySite });
      await first.visit(site.urls.flowCheckout);
      killNewestChromium();
      // The page fails once the browser is gone; the next run's `open` starts a fresh one.
      await expect(first.capture()).rejects.toThrow();
      const next = await own.open({ device: desktop, isAllowedUrl: onlySite });
      expect((await next.visit(site.urls.flowCheckout)).title).toBe("Checkout");
      await next.close();
    } finally {
      await own.close();
    }
    await expect(own.open({ device: desktop })).rejects.toThrow("The agent browser is closed.");
  });
});
