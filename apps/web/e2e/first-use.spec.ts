import AxeBuilder from "@axe-core/playwright";
import { expect, type Page, test } from "@playwright/test";
import { alphaLevel, levelText } from "../features/results/agreement-level";
import { signUp } from "./helpers";

const SCREENSHOT_DIR = process.env.E2E_SCREENSHOT_DIR;
const WCAG_22_AA = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"];

/** Calls the API as the signed-in page does: its session cookie, from the site's own origin. */
async function api<T = Record<string, unknown>>(
  page: Page,
  method: "GET" | "POST" | "PATCH",
  path: string,
  data?: unknown,
): Promise<T> {
  const origin = new URL(page.url()).origin;
  const res = await page.request.fetch(`/api/v1${path}`, {
    method,
    headers: { Origin: origin, "Content-Type": "application/json" },
    data,
  });
  expect(res.status(), `${method} ${path}: ${await res.text()}`).toBeLessThan(300);
  return (await res.json()) as T;
}

interface Evaluation {
  id: string;
  links: { preview: string; edit: string; review: string; results: string };
}

async function newEvaluation(page: Page, status: "Draft" | "Running"): Promise<Evaluation> {
  return api<Evaluation>(page, "POST", "/evaluations", {
    name: "Checkout",
    type: "SSE",
    status,
    designUrls: [
      { url: "https://example.com/current", label: "Current" },
      { url: "https://example.com/proposal", label: "Proposal" },
    ],
  });
}

/** WCAG 2.2 AA violations as `rule: target` lines, so a failure names what to fix. */
async function axeViolations(page: Page): Promise<string[]> {
  const { violations } = await new AxeBuilder({ page }).withTags(WCAG_22_AA).analyze();
  return violations.flatMap((v) => v.nodes.map((n) => `${v.id}: ${n.target.join(" ")}`));
}

test("an evaluation's preview and edit links open it, signed in or not", async ({ page, browser }) => {
  await signUp(page);
  const draft = await newEvaluation(page, "Draft");
  expect(new URL(draft.links.preview).pathname).toBe(`/evaluations/${draft.id}/preview`);

  const preview = await page.goto(draft.links.preview);
  expect(preview?.status()).toBe(200);
  await expect(page).toHaveURL(new RegExp(`/evaluations/${draft.id}#comparisons-heading$`));
  await expect(page.getByRole("heading", { name: "Comparisons" })).toBeVisible();
  await expect(page.getByText("Current").first()).toBeVisible();

  const edit = await page.goto(draft.links.edit);
  expect(edit?.status()).toBe(200);
  await expect(page.getByRole("form", { name: "Edit draft" })).toBeVisible();

  // Signed out, the link asks to sign in and then opens what it points to.
  const visitor = await browser.newPage();
  const email = await page.evaluate(async () => (await (await fetch("/api/v1/auth/whoami")).json()).email);
  await visitor.goto(draft.links.edit);
  await expect(visitor).toHaveURL(/\/sign-in\?next=/);
  await visitor.getByLabel("Email").fill(email);
  await visitor.getByLabel("Password").fill("correct horse battery");
  await visitor.getByRole("button", { name: "Sign in" }).click();
  await expect(visitor.getByRole("form", { name: "Edit draft" })).toBeVisible({ timeout: 30_000 });
  await visitor.close();

  // A running evaluation cannot be edited: the page says so instead of a 404.
  const running = await newEvaluation(page, "Running");
  await page.goto(running.links.edit);
  await expect(page.getByTestId("edit-not-draft")).toContainText("Only a draft can be edited");
});

test("the agreement verdict follows the interval and the sample, not the estimate", () => {
  // What the results page showed as "reliable" for two designs.
  const twoDesigns = { alpha: 0.882, ci95: { lower: -0.08, upper: 0.88 }, units: 2 };
  expect(alphaLevel(twoDesigns)).toBe("uncertain");
  expect(levelText(twoDesigns)).toContain("at least 5 are needed");
  expect(alphaLevel({ ...twoDesigns, units: 40 })).toBe("uncertain");
  expect(alphaLevel({ alpha: 0.9, ci95: { lower: 0.83, upper: 0.95 }, units: 40 })).toBe("reliable");
  expect(alphaLevel({ alpha: 0.75, ci95: { lower: 0.7, upper: 0.8 }, units: 40 })).toBe("tentative");
  expect(alphaLevel({ alpha: 0.3, ci95: { lower: 0.1, upper: 0.5 }, units: 40 })).toBe("low");
  expect(alphaLevel({ alpha: 0.9, ci95: null, units: 40 })).toBe("uncertain");
  expect(alphaLevel({ alpha: null, ci95: null, units: 0 })).toBeNull();
});

test("WCAG 2.2 AA at 1280 px: API keys, an evaluation, its results, the rating form and the API reference", async ({
  page,
}) => {
  test.setTimeout(240_000);
  await page.setViewportSize({ width: 1280, height: 900 });
  await signUp(page);
  await api(page, "POST", "/api-keys", { name: "Nightly export", scopes: ["evaluations:read"] });
  const evaluation = await newEvaluation(page, "Running");
  const comparisons = await api<{ data: { id: string }[] }>(
    page,
    "GET",
    `/evaluations/${evaluation.id}/comparisons`,
  );
  for (const [i, c] of comparisons.data.entries())
    await api(page, "POST", `/evaluations/${evaluation.id}/ratings`, {
      comparisonId: c.id,
      dimensionRatings: { overall: 4 + i },
      justification: "Clear prices.",
    });
  // The rating form shows only while something is left to rate: a second evaluation nobody rated.
  const unrated = await newEvaluation(page, "Running");
  const notFound: string[] = [];
  page.on("response", (res) => {
    if (res.status() === 404 && new URL(res.url()).pathname === "/favicon.ico") notFound.push(res.url());
  });

  const pages: [string, string, () => Promise<unknown>][] = [
    ["/api-keys", "API keys", () => expect(page.getByRole("heading", { name: "API keys" })).toBeVisible()],
    [
      `/evaluations/${evaluation.id}`,
      "evaluation",
      () => expect(page.getByRole("heading", { name: "Comparisons" })).toBeVisible(),
    ],
    [
      `/evaluations/${evaluation.id}/results`,
      "results",
      () => expect(page.getByTestId("tile-alpha")).toBeVisible(),
    ],
    [`/evaluations/${unrated.id}/rate`, "rate", () => expect(page.getByRole("group").first()).toBeVisible()],
    [
      "/docs",
      "API reference",
      () => expect(page.getByRole("heading", { name: "API versions" })).toBeVisible({ timeout: 60_000 }),
    ],
  ];
  const found: string[] = [];
  for (const [path, name, ready] of pages) {
    await page.goto(path);
    await ready();
    found.push(...(await axeViolations(page)).map((v) => `${name}: ${v}`));
    if (SCREENSHOT_DIR) {
      for (const width of [390, 1920, 1280]) {
        await page.setViewportSize({ width, height: 900 });
        await page.screenshot({
          path: `${SCREENSHOT_DIR}/${name.replace(/ /g, "-")}-${width}.png`,
          fullPage: true,
        });
      }
    }
  }
  expect(found).toEqual([]);
  const icon = await page.request.get("/favicon.ico");
  expect(icon.status()).toBe(200);
  expect(icon.headers()["content-type"]).toMatch(/icon/);
  expect(notFound).toEqual([]);
});

test("on a 390 px phone a table that does not fit scrolls, says so, and takes the keyboard", async ({
  page,
}) => {
  await page.setViewportSize({ width: 390, height: 844 });
  await signUp(page);
  await newEvaluation(page, "Draft");
  await page.goto("/evaluations");
  const region = page.getByRole("region", { name: /scrolls sideways/ });
  await expect(region).toBeVisible();
  await expect(page.getByText("Scroll sideways for more columns →")).toBeVisible();
  const scroller = page.locator(".table-scroll[data-overflow]").first();
  expect(await scroller.evaluate((el) => el.scrollWidth > el.clientWidth)).toBe(true);
  await region.focus();
  await page.keyboard.press("End");
  await page.keyboard.press("ArrowRight");
  await expect.poll(() => scroller.evaluate((el) => el.scrollLeft)).toBeGreaterThan(0);
  // The page itself does not scroll sideways: only the table does.
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
  if (SCREENSHOT_DIR)
    await page.screenshot({ path: `${SCREENSHOT_DIR}/evaluations-390.png`, fullPage: true });
});
