import { expect, type Page, test } from "@playwright/test";
import { signUp } from "./helpers";

/** Every URL the page (and any worker it starts) asks for, and every resource the browser refused to load. */
function recordRequests(page: Page): { urls: string[]; refused: string[] } {
  const urls: string[] = [];
  const refused: string[] = [];
  page.context().on("request", (request) => urls.push(request.url()));
  page.on("console", (message) => {
    // An HTTP error answer (a missing favicon) is not a refused load; a blocked or failed request is.
    if (/Content Security Policy|net::ERR_/i.test(message.text())) refused.push(message.text());
  });
  return { urls, refused };
}

function offsite(urls: string[], baseURL: string): string[] {
  const origin = new URL(baseURL).origin;
  return urls.filter((u) => !/^(data|blob|about):/.test(u) && new URL(u).origin !== origin);
}

test("the API reference renders the live document offline, with curl and SDK samples", async ({
  page,
  baseURL,
}) => {
  const seen = recordRequests(page);
  await page.goto("/docs");
  const operation = await openCreateEvaluation(page);
  await operation.scrollIntoViewIfNeeded();
  const section = page.locator("section").filter({ has: operation }).last();
  await expect(section.locator("code").filter({ hasText: "--request POST" }).first()).toBeAttached();
  await page.screenshot({ path: test.info().outputPath("api-reference.png") });

  // The SDK sample is the one `@rubricon/sdk` method for the route, offered beside curl.
  await section.getByRole("button", { name: /Curl/ }).first().click();
  await expect(page.getByText("SDK (TypeScript)").first()).toBeVisible();
  const doc = await page.evaluate(async () => (await fetch("/api/v1/openapi.json")).json());
  expect(doc.paths["/evaluations"].post.summary).toBe("Create an evaluation");

  expect(seen.urls.some((u) => u.endsWith("/api/v1/openapi.json"))).toBe(true);
  expect(offsite(seen.urls, baseURL!)).toEqual([]);
  expect(seen.refused).toEqual([]);
});

test("an error's doc_url opens its row in the error-codes table", async ({ page, baseURL }) => {
  const seen = recordRequests(page);
  const res = await page.request.get("/api/v1/evaluations");
  expect(res.status()).toBe(401);
  const { error } = await res.json();
  expect(error.doc_url).toBe(`${baseURL}/docs/errors#${error.code}`);

  await page.goto(error.doc_url);
  const row = page.locator(`tr#${error.code}`);
  await expect(row).toBeVisible();
  await expect(row).toContainText("authentication_error");
  await expect(row).toContainText("401");
  expect(await row.evaluate((el) => el.matches(":target"))).toBe(true);
  // The whole registry is there: one row per code.
  expect(await page.locator("table.error-codes tbody tr").count()).toBeGreaterThan(100);
  expect(offsite(seen.urls, baseURL!)).toEqual([]);
});

test("the dashboard's menu leads to the API reference", async ({ page }) => {
  await signUp(page);
  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "API reference" }).click();
  await expect(page).toHaveURL(/\/docs$/);
  await openCreateEvaluation(page);
});

/** Operations render as their tag is opened, as a reader does from the sidebar. */
async function openCreateEvaluation(page: Page) {
  await page.getByText("Evaluations", { exact: true }).first().click({ timeout: 60_000 });
  await page.getByText("Create an evaluation", { exact: true }).first().click();
  const heading = page.getByRole("heading", { name: "Create an evaluation" }).first();
  await expect(heading).toBeVisible({ timeout: 30_000 });
  return heading;
}
