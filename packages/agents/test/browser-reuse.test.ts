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

const WITH_PIXEL = `<!doctype html><html lang="en"><head><title>Pixel</title></head><body><main><h1>Pixel</h1>
<img src="/pixel" alt="" width="1" height="1"></main></body></html>`;

/** Every request the site answered, with the client port of the connection it came on. */
const sockets: { path: string; port: number }[] = [];
const served = new WeakSet<object>();
const portsOf = (path: string) => sockets.filter((s) => s.path === path).map((s) => s.port);

let site: Server;
let origin: string;
let pw: Browser;
let agentBrowser: AgentBrowser;
const onlySite = async (url: string) => new URL(url).origin === origin;

beforeAll(async () => {
  site = createServer((req, res) => {
    sockets.push({ path: req.url ?? "", port: req.socket.remotePort ?? 0 });
    if (req.url === "/drops-kept-connections") {
      // A site whose idle timeout closed the connection just as the next request was written on it.
      if (served.has(req.socket)) {
        req.socket.destroy();
        return;
      }
      served.add(req.socket);
      res.writeHead(200, { "Content-Type": "text/html; charset=utf-8" }).end(READ);
      return;
    }
    if (req.url === "/pixel") {
      res.writeHead(200, { "Content-Type": "image/svg+xml", "Cache-Control": "no-store" });
      res.end('<svg xmlns="http://www.w3.org/2000/svg" width="1" height="1"/>');
      return;
    }
    if (req.url === "/with-pixel") {
      res.writeHead(200, { "Content-Type": "text/html; charset=utf-8" }).end(WITH_PIXEL);
      return;
    }
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
  // Connections stay open for the whole file, so which connection a request came on tells its context.
  site.keepAliveTimeout = 300_000;
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

  it("forgets the permissions granted to an earlier run", async () => {
    const tab = await openAgentTab(pw, desktop, "team-a");
    try {
      const release = async () => {};
      const geolocation = () =>
        navigator.permissions.query({ name: "geolocation" }).then((status) => status.state);
      const first = await openAgentPage(pw, { device: desktop, isAllowedUrl: onlySite }, { tab, release });
      await tab.context.grantPermissions(["geolocation"], { origin });
      await first.visit(`${origin}/read`);
      expect(await tab.page.evaluate(geolocation)).toBe("granted");
      await first.close();
      expect(await resetAgentTab(tab)).toBe(true);

      const second = await openAgentPage(pw, { device: desktop, isAllowedUrl: onlySite }, { tab, release });
      await second.visit(`${origin}/read`);
      expect(await tab.page.evaluate(geolocation)).toBe("prompt");
      await second.close();
    } finally {
      await tab.context.close();
    }
  });

  it("guards each run's requests with that run's own address check, not an earlier run's", async () => {
    const tab = await openAgentTab(pw, desktop, "team-a");
    try {
      const release = async () => {};
      const before = portsOf("/pixel").length;
      const first = await openAgentPage(pw, { device: desktop, isAllowedUrl: onlySite }, { tab, release });
      await first.visit(`${origin}/with-pixel`);
      await first.close();
      expect(portsOf("/pixel").length).toBe(before + 1);
      expect(await resetAgentTab(tab)).toBe(true);

      // The second run may open the page but not the image on it: the image is never asked of the site.
      const noPixel = async (url: string) => (await onlySite(url)) && new URL(url).pathname !== "/pixel";
      const second = await openAgentPage(pw, { device: desktop, isAllowedUrl: noPixel }, { tab, release });
      const capture = await second.visit(`${origin}/with-pixel`);
      expect(capture.signals.brokenImages).toBe(1);
      await second.close();
      expect(portsOf("/pixel").length).toBe(before + 1);
    } finally {
      await tab.context.close();
    }
  });

  it("never serves a run of one team with a context another team's run used", async () => {
    // A context keeps its connections to a site open between runs (a kept context is what makes runs faster);
    // another team's run must come on a connection of its own, as a new context would.
    const portOfRun = async (partition: string) => {
      const page = await agentBrowser.open({ device: desktop, isAllowedUrl: onlySite, partition });
      await page.visit(`${origin}/with-pixel`);
      await page.close();
      return portsOf("/pixel").at(-1)!;
    };
    const teamA = await portOfRun("team-a");
    // The same team's next run is served by the context the first left, on its open connection.
    expect(await portOfRun("team-a")).toBe(teamA);
    const teamB = await portOfRun("team-b");
    expect(teamB).not.toBe(teamA);
    // And team A's context, still kept, is not handed over to team B either way round.
    expect(await portOfRun("team-a")).toBe(teamA);
    expect(await portOfRun("team-b")).toBe(teamB);
    await agentBrowser.trim();
  });

  it("opens the next run's page on a connection of its own, not one the site may have closed since the last run", async () => {
    const visits = async () => {
      const page = await agentBrowser.open({ device: desktop, isAllowedUrl: onlySite, partition: "team-c" });
      const capture = await page.visit(`${origin}/drops-kept-connections`);
      await page.close();
      return capture.title;
    };
    expect(await visits()).toBe("Read");
    // The same kept context serves this run; the site drops any connection that already served a page.
    expect(await visits()).toBe("Read");
    expect(new Set(portsOf("/drops-kept-connections")).size).toBe(2);
    await agentBrowser.trim();
  });

  it("closes a kept context handed to a run that was cancelled before its page opened", async () => {
    const tab = await openAgentTab(pw, desktop, "team-a");
    const cancelled = new AbortController();
    cancelled.abort();
    const opened = openAgentPage(pw, { device: desktop, signal: cancelled.signal }, { tab });
    await expect(opened).rejects.toMatchObject({ code: "aborted" });
    expect(tab.page.isClosed()).toBe(true);
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
