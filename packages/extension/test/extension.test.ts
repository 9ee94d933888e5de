import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { autouserRunLoop, startLoops } from "@rubricon/api";
import { startTestServer, type TestServer } from "@rubricon/api/testing";
import { setTeamPlan } from "@rubricon/core";
import { type BrowserContext, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const PKG = fileURLToPath(new URL("..", import.meta.url));
const SITE_PORT = Number(process.env.EXTENSION_TEST_SITE_PORT ?? 3215);
const VIEWPORT = { width: 900, height: 640 };

let server: TestServer;
let site: Server;
let context: BrowserContext;
let extensionDir: string;
const pageUrl = `http://127.0.0.1:${SITE_PORT}/checkout`;

/** Chromium names an unpacked extension after its folder: the SHA-256 of the path, first 32 hex digits as a–p. */
function extensionId(dir: string): string {
  const hex = createHash("sha256").update(dir).digest("hex").slice(0, 32);
  return [...hex].map((c) => String.fromCharCode(97 + Number.parseInt(c, 16))).join("");
}

async function signUp(): Promise<{ email: string; cookie: string; teamId: string }> {
  const email = `ext-${Date.now()}@example.com`;
  const res = await fetch(`${server.url}/api/auth/sign-up`, {
    method: "POST",
    headers: { "Content-Type": "application/json", Origin: server.url },
    body: JSON.stringify({ email, password: "correct horse battery", name: "Browser" }),
  });
  expect(res.status).toBe(201);
  const { teamId } = (await res.json()) as { teamId: string };
  const { services } = server.app;
  await setTeamPlan({ db: services.db, clock: services.clock, baseUrl: services.env.baseUrl }, teamId, "pro");
  return { email, teamId, cookie: res.headers.getSetCookie()[0]!.split(";")[0]! };
}

beforeAll(async () => {
  server = await startTestServer({
    env: {
      // Autousers open the loopback page and the uploaded screenshot.
      AUTOUSER_ALLOW_PRIVATE_URLS: "true",
      DATA_DIR: mkdtempSync(join(tmpdir(), "rubricon-extension-data-")),
    },
  });
  site = createServer((_req, res) => {
    res.writeHead(200, { "Content-Type": "text/html; charset=utf-8" });
    res.end(
      '<!doctype html><html lang="en"><head><title>Checkout</title></head>' +
        '<body style="margin:0;font:16px system-ui;background:#f8fafc">' +
        '<header style="background:#2563eb;color:#fff;padding:24px"><h1>Checkout</h1></header>' +
        '<main style="padding:24px"><p>Review your order and pay.</p><button>Pay now</button></main></body></html>',
    );
  });
  await new Promise<void>((resolve) => site.listen(SITE_PORT, "127.0.0.1", resolve));

  const out = realpathSync(mkdtempSync(join(tmpdir(), "rubricon-extension-build-")));
  execFileSync(process.execPath, [join(PKG, "scripts/build.mjs"), "--out", out], { stdio: "pipe" });
  extensionDir = join(out, "extension");
  // The built extension reads a tab's address and screenshot through activeTab, which Chromium grants when the
  // user clicks the toolbar button; headless Chromium has no toolbar to click, so this copy holds the host
  // permission that click would grant, for every page.
  const manifest = JSON.parse(readFileSync(join(extensionDir, "manifest.json"), "utf8"));
  manifest.host_permissions.push("<all_urls>");
  writeFileSync(join(extensionDir, "manifest.json"), JSON.stringify(manifest));

  context = await chromium.launchPersistentContext(
    mkdtempSync(join(tmpdir(), "rubricon-extension-profile-")),
    {
      executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
      headless: false,
      viewport: VIEWPORT,
      args: [
        "--headless=new",
        "--no-sandbox",
        "--disable-background-networking",
        `--disable-extensions-except=${extensionDir}`,
        `--load-extension=${extensionDir}`,
      ],
    },
  );
}, 300_000);

afterAll(async () => {
  await context?.close();
  await new Promise((resolve) => site?.close(resolve));
  await server?.close();
});

describe("the browser extension in Chromium", () => {
  it("signs in with a code, adds the page and a screenshot to a new Draft, runs autousers and shows their scores", async () => {
    const account = await signUp();
    const id = extensionId(extensionDir);

    const tab = await context.newPage();
    await tab.goto(pageUrl);

    // Point the extension at this server in its options page.
    const options = await context.newPage();
    await options.goto(`chrome-extension://${id}/options.html`);
    await expect.poll(() => options.inputValue("#server")).toBe("http://localhost:3000");
    await options.fill("#server", `${server.url}/`);
    await options.click("button[type=submit]");
    await expect
      .poll(() => options.textContent("#status"))
      .toBe(`Saved. Rubricon sends pages and screenshots only to ${server.url}.`);

    // The popup in a window of its own, as the toolbar shows it beside the tab.
    const opened = context.waitForEvent("page");
    await options.evaluate(
      (url) => chrome.windows.create({ url, type: "popup", width: 380, height: 700 }),
      `chrome-extension://${id}/popup.html`,
    );
    const popup: Page = await opened;
    await options.close();
    await tab.bringToFront();

    await popup.waitForSelector("#signed-out:not([hidden])");
    expect(await popup.textContent("#signed-out [data-server]")).toBe(server.url);
    await popup.click("#sign-in");
    await popup.waitForSelector("#pairing:not([hidden])");
    const code = (await popup.textContent("#code"))!;
    expect(code).toMatch(/^[A-Z0-9]{4}-[A-Z0-9]{4}$/);
    const approved = await fetch(`${server.api}/auth/figma/pair/${code}/approve`, {
      method: "POST",
      headers: { Cookie: account.cookie, Origin: server.url },
    });
    expect(approved.status).toBe(200);
    // The popup polls at the server's interval (10 s).
    await popup.waitForSelector("#signed-in:not([hidden])", { timeout: 30_000 });
    expect(await popup.textContent("#who")).toBe(account.email);
    const token = await popup.evaluate(async () => (await chrome.storage.local.get("token")).token as string);

    await popup.waitForSelector("#template option[value=overall]", { state: "attached" });
    expect(await popup.inputValue("#target")).toBe("new");
    await popup.fill("#name", "Checkout, from the browser");
    await popup.click("#add-page");
    await expect.poll(() => popup.textContent("#added"), { timeout: 30_000 }).toBe("Page added.");
    const evaluationId = await popup.evaluate(
      async () => (await chrome.storage.local.get("evaluationId")).evaluationId as string,
    );
    // The next addition goes to the same Draft, now chosen in "Add to".
    expect(await popup.inputValue("#target")).toBe(evaluationId);
    await popup.click("#add-screenshot");
    await expect.poll(() => popup.textContent("#added"), { timeout: 30_000 }).toBe("Screenshot added.");
    await expect.poll(() => popup.textContent("#evaluation-status")).toBe("Draft · 2 comparison(s)");
    expect(await popup.textContent("#error")).toBe("");

    const auth = { headers: { Authorization: `Bearer ${token}` } };
    const evaluation = await (await fetch(`${server.api}/evaluations/${evaluationId}`, auth)).json();
    expect(evaluation).toMatchObject({ name: "Checkout, from the browser", type: "SSE", status: "Draft" });
    const comparisons = (
      (await (await fetch(`${server.api}/evaluations/${evaluationId}/comparisons`, auth)).json()).data as {
        name: string;
        position: number;
        stimulus: { url: string | null; fileId: string | null; contentType: string | null };
      }[]
    ).sort((a, b) => a.position - b.position);
    expect(comparisons).toHaveLength(2);
    expect(comparisons[0]!.stimulus).toMatchObject({ url: pageUrl, fileId: null });
    expect(comparisons[0]!.name).toBe("Checkout");
    expect(comparisons[1]!.name).toBe("Screenshot: Checkout");
    expect(comparisons[1]!.stimulus).toMatchObject({ url: null, contentType: "image/png" });
    // The screenshot is the visible tab: a PNG as wide as the viewport, showing the page's blue header.
    const file = await fetch(`${server.api}/files/${comparisons[1]!.stimulus.fileId}`, auth);
    expect(file.status).toBe(200);
    const png = Buffer.from(await file.arrayBuffer());
    expect(png.subarray(1, 4).toString()).toBe("PNG");
    expect(png.readUInt32BE(16)).toBe(VIEWPORT.width);

    // Start an autouser from the popup and watch its scores arrive.
    await popup.check("#autousers input[value=auto_first_time_visitor]");
    const loops = startLoops(
      [autouserRunLoop(server.app.services, { heartbeatMs: 250, pollMs: 50 })],
      () => {},
    );
    try {
      await popup.click("#start-autousers");
      await expect
        .poll(() => popup.textContent("#progress-text"), { timeout: 240_000, interval: 1000 })
        .toBe("Done: 2 rating(s)");
    } finally {
      await loops.stop();
    }
    const scores = await popup.$$eval("#scores tr", (rows) => rows.map((r) => r.textContent));
    // `UPDATE_DOCS_SCREENSHOTS=1` refreshes the picture in docs/extension.md from this run.
    if (process.env.UPDATE_DOCS_SCREENSHOTS) {
      await popup.setViewportSize({ width: 368, height: 640 });
      await popup.screenshot({
        path: join(PKG, "../../docs/screenshots/extension-popup.png"),
        fullPage: true,
      });
    }
    expect(scores[0]).toMatch(/^Overall quality\d\.\d\d \(1–\d+, n=2\)$/);
    expect(await popup.textContent("#evaluation-status")).toBe("Running · 2 comparison(s)");
    // A started evaluation takes no more additions from here: "Add to" offers a new Draft again.
    expect(await popup.inputValue("#target")).toBe("new");
    expect(await popup.$$eval("#target option", (o) => o.map((x) => (x as HTMLOptionElement).value))).toEqual(
      ["new"],
    );
  }, 400_000);
});
