import { expect, type Page, test } from "@playwright/test";
import { signUp } from "./helpers";

/** Every URL the page (and any worker it starts) asks for, and every resource the browser refused to load. */
function recordRequests(page: Page): { urls: string[]; refused: string[] } {
  const urls: string[] = [];
  const refused: string[] = [];
  page.context().on("request", (request) => urls.push(request.url()));
  page.on("console", (message) => {
    if (/Content Security Policy|ERR_|Failed to load/i.test(message.text())) refused.push(message.text());
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

  // Rendered from the live document: an operation's summary, and the request samples beside it.
  const operation = page.getByRole("heading", { name: "Create an evaluation" }).first();
  await expect(operation).toBeVisible({ timeout: 60_000 });
  await operation.scrollIntoViewIfNeeded();
  await expect(page.getByText("curl").first()).toBeAttached();
  const html = await page.content();
  expect(html).toContain("--url");
  await page.screenshot({ path: test.info().outputPath("api-reference.png") });

  // The SDK sample is the one `@rubricon/sdk` method for the route.
  await expect(page.getByText("SDK (TypeScript)").first()).toBeAttached();
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
  await expect(page.getByRole("heading", { name: "Create an evaluation" }).first()).toBeVisible({
    timeout: 60_000,
  });
});
