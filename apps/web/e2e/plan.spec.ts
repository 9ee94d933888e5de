import { expect, test } from "@playwright/test";
import { openSettings, signUp } from "./helpers";

const SCREENSHOT_DIR = process.env.E2E_SCREENSHOT_DIR ?? "/tmp";

test("an owner sees this month's usage and switches plan; the limits follow", async ({ page, baseURL }) => {
  const plans = page.getByRole("region", { name: "Plans" });
  const card = (name: string) => page.getByRole("article", { name: `${name} plan` });
  const evaluations = page.getByTestId("usage-evals_mo");
  const rpm = page.getByTestId("usage-rpm");

  await test.step("sign up and open Plan: a new team is on Free", async () => {
    await signUp(page);
    await openSettings(page, "Plan & usage");
    await expect(page).toHaveURL(/\/plan$/);
    await expect(page.getByRole("heading", { name: "Plan and usage" })).toBeVisible();
    await expect(card("Free")).toContainText("Current plan");
    await expect(evaluations).toHaveText("0 of 5");
    await expect(rpm).toContainText("60");
  });

  await test.step("an evaluation created through the API shows in the bar", async () => {
    const res = await page.request.post("/api/v1/evaluations", {
      headers: { Origin: baseURL!, "Content-Type": "application/json" },
      data: { name: "Counted", type: "SSE", designUrls: [{ url: "https://example.com/a" }] },
    });
    expect(res.status()).toBe(201);
    await page.reload();
    await expect(evaluations).toHaveText("1 of 5");
    await expect(page.getByRole("progressbar", { name: "Evaluations" })).toHaveAttribute(
      "aria-valuenow",
      "1",
    );
  });

  await test.step("switch to Team: higher limits at once", async () => {
    await card("Team").getByRole("button", { name: "Switch to Team" }).click();
    await expect(plans.getByRole("status")).toHaveText("Switched to the Team plan.");
    await expect(card("Team")).toContainText("Current plan");
    await expect(card("Free")).not.toContainText("Current plan");
    await expect(evaluations).toHaveText("1 of 100");
    await expect(rpm).toContainText("120");
    await page.screenshot({ path: `${SCREENSHOT_DIR}/plan-team.png`, fullPage: true });
  });

  await test.step("switch to Pro: evaluations become unlimited, and the API agrees", async () => {
    await card("Pro").getByRole("button", { name: "Switch to Pro" }).click();
    await expect(plans.getByRole("status")).toHaveText("Switched to the Pro plan.");
    await expect(evaluations).toHaveText("1 used · unlimited");
    await expect(rpm).toContainText("600");
    const usage = await page.request.get("/api/v1/usage");
    expect(usage.status()).toBe(200);
    expect(await usage.json()).toMatchObject({
      plan: "pro",
      limits: { rpm: 600, evals_mo: -1 },
      used: { evals_mo: 1 },
    });
  });

  await test.step("Enterprise is not self-service", async () => {
    await expect(card("Enterprise").getByRole("button")).toHaveCount(0);
    await expect(card("Enterprise")).toContainText("contact us");
  });
});
