import { expect, test } from "@playwright/test";
import { openSettings, signUp, uniqueEmail } from "./helpers";

test("sign up, create and run an evaluation, and read it back with an API key", async ({ page, request }) => {
  const email = uniqueEmail();
  const evaluationName = `Checkout redesign ${Date.now()}`;

  await test.step("sign up", async () => {
    await signUp(page, email);
    await expect(page.getByRole("heading", { name: "No evaluations yet" })).toBeVisible();
  });

  await test.step("create an evaluation", async () => {
    await page.getByRole("link", { name: "New evaluation" }).first().click();
    await expect(page).toHaveURL(/\/evaluations\/new$/);
    await page.getByLabel("Name").fill(evaluationName);
    await page.getByLabel("Description").fill("Which checkout is clearer?");
    await page
      .getByLabel("Design URLs")
      .fill("https://example.com/checkout\nhttps://example.com/checkout-v2");
    await page.getByLabel("Share access").selectOption("ANYONE_WITH_LINK");
    await page.getByRole("button", { name: "Create evaluation" }).click();
    await expect(page).toHaveURL(/\/evaluations\/eval_/);
    await expect(page.getByRole("heading", { name: evaluationName })).toBeVisible();
  });

  await test.step("see it listed", async () => {
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Evaluations" }).click();
    await expect(page).toHaveURL(/\/evaluations$/);
    const row = page.getByRole("row").filter({ hasText: evaluationName });
    await expect(row).toBeVisible();
    await expect(row).toContainText("SSE");
    await expect(row).toContainText("Draft");
    await expect(row.getByRole("cell").nth(3)).toHaveText("2");
    await row.getByRole("link", { name: evaluationName }).click();
  });

  await test.step("move it to Running", async () => {
    await expect(page.getByRole("heading", { name: evaluationName })).toBeVisible();
    await expect(page.getByTestId("evaluation-status")).toHaveText("Draft");
    await expect(
      page.getByRole("listitem").filter({ hasText: "https://example.com/checkout-v2" }),
    ).toBeVisible();
    await page.getByRole("button", { name: "Move to Running" }).click();
    await expect(page.getByTestId("evaluation-status")).toHaveText("Running");
    await expect(page.getByRole("button", { name: "Move to Ended" })).toBeVisible();
  });

  let apiKey = "";
  await test.step("mint an API key", async () => {
    await openSettings(page, "API keys");
    await expect(page).toHaveURL(/\/api-keys$/);
    await page.getByLabel("Key name").fill("E2E reader");
    await page.getByLabel("evaluations:read", { exact: true }).check();
    await page.getByRole("button", { name: "Create key" }).click();
    const keyBox = page.getByLabel("New API key");
    await expect(keyBox).toBeVisible();
    apiKey = await keyBox.inputValue();
    expect(apiKey).toMatch(/^ak_live_/);
    await expect(page.getByText("It will not be shown again")).toBeVisible();
    await expect(
      page.getByRole("region", { name: "Active keys" }).getByRole("row").filter({ hasText: "E2E reader" }),
    ).toContainText("evaluations:read");
  });

  await test.step("read evaluations with the key", async () => {
    const res = await request.get("/api/v1/evaluations", {
      headers: { Authorization: `Bearer ${apiKey}` },
    });
    expect(res.status()).toBe(200);
    const body = (await res.json()) as {
      object: string;
      data: { name: string; status: string }[];
    };
    expect(body.object).toBe("list");
    expect(body.data).toContainEqual(expect.objectContaining({ name: evaluationName, status: "Running" }));
  });

  await test.step("the key is not shown again", async () => {
    await page.reload();
    await expect(
      page.getByRole("region", { name: "Active keys" }).getByRole("row").filter({ hasText: "E2E reader" }),
    ).toBeVisible();
    await expect(page.getByLabel("New API key")).toHaveCount(0);
    await expect(page.getByText(apiKey)).toHaveCount(0);
    expect(await page.content()).not.toContain(apiKey);
  });
});

test("an unauthenticated visit to the dashboard lands on sign-in", async ({ page }) => {
  await page.goto("/evaluations");
  await expect(page).toHaveURL(/\/sign-in(\?|$)/);
  await expect(page.getByRole("heading", { name: "Sign in to Rubricon" })).toBeVisible();
});
