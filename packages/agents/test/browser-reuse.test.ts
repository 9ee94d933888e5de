import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { type Browser, chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type AgentBrowser,
  DEFAULT_CHROMIUM_PATH,
  launchAgentBrowser,
  type PageCapture,
  type PersonaDevice,
} from "../src";
import { type AgentTab, openAgentPage, openAgentTab, resetAgentTab } from "../src/browser/agent-page";

const desktop: PersonaDevice = { kind: "desktop", viewport: { width: 1280, height: 800 }, network: "fast" };

/** Leaves every kind of state a visitor can carry: a cookie, both storages, a database, a cache, the tab's name. */
const SET = `<!doctype html><html lang="en"><head><title>Set</title></head><body><main><h1>Set</h1>
<script>
localStorage.setItem("k", "team a");
sessionStorage.setItem("k", "team a");
window.name = "team a";
indexedDB.open("team-a-db", 1);
caches.open("team-a-cache").catch(() => {});
</script></main></body></html>`;
const READ = `<!doctype html><html lang="en"><head><title>Read</title></head><body><main><h1>Read</h1>
<p id="seen"></p><script>document.getElementById("seen").textContent =
"cookie=" + document.cookie + ";local=" + localStorage.getItem("k") + ";name=" + window.name;</script>
</main></body></html>`;

/** What the page in front of the run can find of an earlier visitor. */
const leftovers = () =>
  (async () => ({
    cookie: document.cookie,
    local: localStorage.getItem("k"),
    session: sessionStorage.getItem("k"),
    name: window.name,
    databases: (await indexedDB.databases()).map((d) => d.name),
    caches: await caches.keys(),
    history: history.length,
  }))();

let site: Server;
let origin: string;
let pw: Browser;
let agentBrowser: AgentBrowser;
const onlySite = async (url: string) => new URL(url).origin === origin;

beforeAll(async () => {
  site = createServer((req, res) => {
    if (req.url === "/set") {
      res.writeHead(200, {
        "Content-Type": "text/html; charset=utf-8",
        "Set-Cookie": "visitor=team-a; Path=/; Max-Age=3600",
        "Cache-Control": "max-age=3600",
      });
      res.end(SET);
      return;
    }
    res.writeHead(200, { "Content-Type": "text/html; charset=utf-8" }).end(READ);
  });
  await new Promise<void>((resolve) => site.listen(0, "127.0.0.1", resolve));
  origin = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
  pw = await chromium.launch({
    executablePath: DEFAULT_CHROMIUM_PATH,
    args: ["--no-sandbox", "--disable-background-networking"],
  });
  agentBrowser = await launchAgentBrowser();
});
afterAll(async () => {
  await agentBrowser?.close();
  await pw?.close();
  await new Promise<void>((resolve) => site?.close(() => resolve()));
});

function reproducible(capture: PageCapture) {
  const { capturedAt, screenshot, signals, ...rest } = capture;
  const { timings, ...figures } = signals;
  return { ...rest, figures };
}

describe("a context serving one run after another", () => {
  it("is cleared of everything the earlier run left before the next run sees it", async () => {
    const tab = await openAgentTab(pw, desktop, "team-a");
    try {
      const released: AgentTab[] = [];
      const release = async (t: AgentTab) => {
        released.push(t);
      };
      const first = await openAgentPage(pw, { device: desktop, isAllowedUrl: onlySite }, { tab, release });
      await first.visit(`${origin}/set`);
      await tab.page.goto(`${origin}/read`);
      // The state is really there before the reset, so the empty answer below is the reset's doing.
      expect(await tab.page.evaluate(leftovers)).toMatchObject({
        cookie: "visitor=team-a",
        local: "team a",
        session: "team a",
        name: "team a",
        databases: ["team-a-db"],
        caches: ["team-a-cache"],
      });
      await first.close();
      expect(released).toEqual([tab]);
      expect(await resetAgentTab(tab)).toBe(true);

      const second = await openAgentPage(pw, { device: desktop, isAllowedUrl: onlySite }, { tab, release });
      const capture = await second.visit(`${origin}/read`);
      expect(capture.title).toBe("Read");
      expect(await tab.page.evaluate(leftovers)).toEqual({
        cookie: "",
        local: null,
        session: null,
        name: "",
        databases: [],
        caches: [],
        history: 1,
      });
      await second.close();
    } finally {
      await tab.context.close();
    }
  });

  it("refuses every request while no run holds it", async () => {
    const tab = await openAgentTab(pw, desktop, "team-a");
    try {
      const response = await tab.page.goto(`${origin}/read`).catch((err: Error) => err);
      expect(response).toBeInstanceOf(Error);
      expect(String(response)).toContain("ERR_BLOCKED_BY_CLIENT");
    } finally {
      await tab.context.close();
    }
  });

  it("captures a page the same way as a new context does, and leaves nothing for the next run of either team", async () => {
    const fresh = await agentBrowser.open({ device: desktop, isAllowedUrl: onlySite, partition: "team-a" });
    const asNew = await fresh.visit(`${origin}/set`);
    await fresh.close();
    const again = await agentBrowser.open({ device: desktop, isAllowedUrl: onlySite, partition: "team-a" });
    const asReused = await again.visit(`${origin}/set`);
    await again.close();
    expect(reproducible(asReused)).toEqual(reproducible(asNew));

    for (const partition of ["team-a", "team-b"]) {
      const next = await agentBrowser.open({ device: desktop, isAllowedUrl: onlySite, partition });
      const read = await next.visit(`${origin}/read`);
      expect(read.visibleText).toContain("cookie=;local=null;name=");
      await next.close();
    }
    await agentBrowser.trim();
  });
});
