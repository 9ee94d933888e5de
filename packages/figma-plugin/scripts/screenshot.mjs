// Renders the built plugin window (dist/plugin/ui.html) in Chromium in the states docs/plugin.md shows and saves
// docs/screenshots/figma-plugin-*.png. Run after `pnpm --filter @rubricon/figma-plugin build`.
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";

const PKG = join(dirname(fileURLToPath(import.meta.url)), "..");
const DOCS = join(PKG, "../../docs/screenshots");
const html = readFileSync(join(PKG, "dist/plugin/ui.html"), "utf8");
const server = "https://rubricon.example.com";

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
  args: ["--no-sandbox", "--disable-background-networking"],
});
const page = await browser.newPage({ viewport: { width: 360, height: 560 }, deviceScaleFactor: 2 });
const post = (events) =>
  page.evaluate((list) => {
    for (const pluginMessage of list) window.postMessage({ pluginMessage }, "*");
  }, events);

await page.setContent(html);
await post([
  { type: "selection", frames: [] },
  { type: "pairing", code: "BCDF-GHJK", verificationUrl: `${server}/pair?code=BCDF-GHJK`, expiresAt: "" },
]);
await page.waitForTimeout(200);
await page.screenshot({ path: join(DOCS, "figma-plugin-pairing.png") });

const user = { userId: "u", email: "dana@example.com", teamId: "t", teamName: "Checkout squad", plan: "pro" };
await post([
  { type: "signed-in", server, user },
  {
    type: "selection",
    frames: [
      { id: "1:2", name: "Checkout / step 1" },
      { id: "1:3", name: "Checkout / step 2" },
    ],
  },
  {
    type: "options",
    kind: "SSE",
    templates: [
      { id: "overall", name: "Overall quality" },
      { id: "usability", name: "Usability" },
    ],
    autousers: [
      { id: "auto_first_time_visitor", name: "First-time visitor" },
      { id: "auto_power_user", name: "Power user" },
      { id: "auto_older_adult_low_vision", name: "Older adult with low vision" },
    ],
  },
]);
await page.check("input[value=auto_first_time_visitor]");
await page.selectOption("#status", "Running");
await post([
  {
    type: "created",
    evaluation: {
      id: "e",
      name: "Checkout / step 1, Checkout / step 2",
      status: "Running",
      editUrl: `${server}/evaluations/e`,
      resultsUrl: `${server}/evaluations/e/results`,
      comparisonIds: ["c1", "c2"],
      runIds: ["r1"],
    },
  },
  {
    type: "progress",
    evaluationId: "e",
    progress: {
      progress: 1,
      ratingsCreated: 2,
      plannedRatings: 2,
      running: 0,
      queued: 0,
      completed: 1,
      failed: 0,
      done: true,
      scores: [{ name: "Overall quality", value: 5.5, scale: "1–7", n: 2 }],
    },
  },
]);
await page.waitForTimeout(400);
await page.screenshot({ path: join(DOCS, "figma-plugin-evaluate.png"), fullPage: true });
await browser.close();
process.stdout.write("figma-plugin: docs/screenshots/figma-plugin-pairing.png, figma-plugin-evaluate.png\n");
