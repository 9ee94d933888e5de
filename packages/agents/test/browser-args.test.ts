import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { type BrowserServer, chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_CHROMIUM_PATH } from "../src";
import { AUTOUSER_DISABLED_FEATURES, chromiumArgs } from "../src/browser/chromium-args";
import { type FixtureSite, startFixtureSite } from "../src/testing";

let site: FixtureSite;
let server: BrowserServer;

beforeAll(async () => {
  site = await startFixtureSite();
  server = await chromium.launchServer({ executablePath: DEFAULT_CHROMIUM_PATH, args: chromiumArgs() });
});
afterAll(async () => {
  await server?.close();
  await site?.close();
});

/** The command line of a process, as the kernel holds it. */
const commandLine = (pid: number) => readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").filter(Boolean);

/** Every process below `pid` whose command line says `--type=<type>`. */
function processesOfType(pid: number, type: string): number[] {
  const rows = execFileSync("ps", ["-eo", "pid=,ppid="], { encoding: "utf8" })
    .trim()
    .split("\n")
    .map((line) => line.trim().split(/\s+/).map(Number) as [number, number]);
  const below = new Set([pid]);
  for (let grew = true; grew; ) {
    grew = false;
    for (const [child, parent] of rows) {
      if (!below.has(child) && below.has(parent)) {
        below.add(child);
        grew = true;
      }
    }
  }
  return [...below].filter((p) => {
    try {
      // A process the zygote forked rewrites its command line as one string, so this is not split at NULs.
      return readFileSync(`/proc/${p}/cmdline`, "utf8").includes(`--type=${type} `);
    } catch {
      return false;
    }
  });
}

describe("the autouser browser's command line", () => {
  it("keeps every feature Playwright turns off, since Chromium honours only the last --disable-features", () => {
    const pid = server.process().pid!;
    const lists = commandLine(pid)
      .filter((arg) => arg.startsWith("--disable-features="))
      .map((arg) => arg.slice("--disable-features=".length).split(","));
    // Playwright's own switch, then ours.
    expect(lists.length).toBeGreaterThanOrEqual(2);
    const honoured = new Set(lists.at(-1));
    const dropped = lists
      .slice(0, -1)
      .flat()
      .filter((feature) => !honoured.has(feature));
    expect(dropped).toEqual([]);
    for (const feature of AUTOUSER_DISABLED_FEATURES) expect(honoured.has(feature)).toBe(true);
  });

  it("starts one renderer for a page: no address-bar pop-ups, no spare renderer", async () => {
    const browser = await chromium.connect(server.wsEndpoint());
    try {
      const context = await browser.newContext();
      const page = await context.newPage();
      await page.goto(site.urls.defects);
      await page.goto(`${site.origin}/?again`);
      const pid = server.process().pid!;
      expect(processesOfType(pid, "renderer")).toHaveLength(1);
      const targets = await (await browser.newBrowserCDPSession()).send("Target.getTargets");
      expect(targets.targetInfos.filter((t) => t.type !== "page")).toEqual([]);
      await context.close();
    } finally {
      await browser.close();
    }
  });
});
