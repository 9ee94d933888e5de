import { expect, test } from "@playwright/test";
import { signUp } from "./helpers";

const SCREENSHOT_DIR = process.env.E2E_SCREENSHOT_DIR ?? "/tmp";

test("browse system personas, duplicate and edit one, create a persona with a rubric, and pick autousers for an evaluation", async ({
  page,
}) => {
  const name = `Night shopper ${Date.now()}`;
  const rubrics = page.getByRole("region", { name: "Rubrics" });

  await test.step("sign up and open Autousers: the system personas are listed and read-only", async () => {
    await signUp(page);
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Autousers" }).click();
    await expect(page).toHaveURL(/\/autousers$/);
    await expect(page.getByRole("heading", { name: "Autousers", exact: true })).toBeVisible();
    const row = page.getByRole("row").filter({ hasText: "Screen-reader user" });
    await expect(row).toContainText("System");
    await expect(row).toContainText("Screen reader, Keyboard only");
    await expect(row.getByRole("button", { name: "Duplicate" })).toBeVisible();
    await expect(row.getByRole("button", { name: "Delete" })).toHaveCount(0);
    await expect(row.getByRole("link", { name: "Edit" })).toHaveCount(0);
    // Its timestamp is the deployment's seed, not an edit: the row says it ships with Rubricon.
    await expect(row.getByTestId("updated")).toHaveText("Built in");
    await expect(page.getByRole("row").filter({ hasText: "Mobile shopper on a slow network" })).toContainText(
      "Mobile 390×844, slow 3g",
    );
    await page.screenshot({ path: `${SCREENSHOT_DIR}/autousers-list.png`, fullPage: true });
  });

  await test.step("filters: the team has none of its own yet", async () => {
    await page.getByLabel("Source").selectOption("team");
    await expect(page.getByText("No autousers match these filters.")).toBeVisible();
    await page.getByLabel("Source").selectOption("system");
    await expect(page.getByRole("row").filter({ hasText: "Power user" })).toBeVisible();
    await page.getByLabel("Source").selectOption("");
  });

  await test.step("a system persona opens read-only with its rubrics", async () => {
    await page.getByRole("link", { name: "Accessibility auditor" }).click();
    await expect(page.getByRole("heading", { name: "Accessibility auditor" })).toBeVisible();
    await expect(page.getByRole("note")).toContainText("read-only");
    await expect(page.getByLabel("Name", { exact: true })).toBeDisabled();
    await expect(rubrics.getByLabel("Guidance for Accessibility")).toHaveValue(/WCAG|conformance/);
    await expect(page.getByRole("button", { name: "Save", exact: true })).toHaveCount(0);
  });

  await test.step("duplicate it into the team and edit the copy and a rubric", async () => {
    await page.getByRole("button", { name: "Duplicate" }).click();
    await expect(page.getByRole("heading", { name: "Accessibility auditor (copy)" })).toBeVisible();
    await expect(page.getByRole("note")).toHaveCount(0);
    await page.getByLabel("Name", { exact: true }).fill("Our auditor");
    await page.getByRole("button", { name: "Save", exact: true }).click();
    await expect(page.getByRole("heading", { name: "Our auditor" })).toBeVisible();

    const guidance = rubrics.getByLabel("Guidance for Content");
    await guidance.fill("Link text must make sense read alone.");
    await rubrics.getByRole("button", { name: "Save Content rubric" }).click();
    await expect(rubrics.getByRole("button", { name: "Save Content rubric" })).toBeDisabled();
    await page.reload();
    await expect(rubrics.getByLabel("Guidance for Content")).toHaveValue(
      "Link text must make sense read alone.",
    );
  });

  await test.step("create a persona: the form checks as you type, a mobile device brings its viewport", async () => {
    await page.goto("/autousers/new");
    const save = page.getByRole("button", { name: "Save", exact: true });
    await page.getByLabel("Name", { exact: true }).fill(name);
    await page.getByLabel("Role").fill("A parent shopping on a phone late at night");
    await page.getByLabel("Device kind").selectOption("mobile");
    await expect(page.getByLabel("Viewport width")).toHaveValue("390");
    await page.getByLabel("Viewport width").fill("100");
    await page.getByLabel("Viewport width").blur();
    await expect(page.getByLabel("Viewport width")).toHaveAttribute("aria-invalid", "true");
    await expect(page.getByLabel("Viewport width")).not.toHaveAccessibleDescription("");
    await expect(page.getByLabel("Goals")).toHaveAccessibleDescription("One per line.");
    await expect(save).toBeDisabled();
    await page.getByLabel("Viewport width").fill("414");
    await page.getByLabel("Network").selectOption("slow-4g");
    await page.getByLabel("Goals").fill("Buy a birthday present\nPay with a saved card");
    await page.getByLabel("Low vision").check();
    await page.getByLabel("Visibility").selectOption("public");
    await expect(save).toBeEnabled();
    await save.click();
    await expect(page).toHaveURL(/\/autousers\/auto_[^/]+$/);
    await expect(page.getByRole("heading", { name })).toBeVisible();
    await expect(page.getByLabel("Goals")).toHaveValue("Buy a birthday present\nPay with a saved card");
    await expect(page.getByLabel("Low vision")).toBeChecked();
  });

  await test.step("add a rubric for a template", async () => {
    await expect(rubrics).toContainText("No rubrics yet");
    await rubrics.getByLabel("Template").selectOption({ label: "Usability" });
    await rubrics.getByLabel("Guidance", { exact: true }).fill("Every extra tap on a phone costs.");
    await rubrics.getByRole("button", { name: "Add rubric" }).click();
    await expect(rubrics.getByLabel("Guidance for Usability")).toHaveValue(
      "Every extra tap on a phone costs.",
    );
    await page.screenshot({ path: `${SCREENSHOT_DIR}/autouser-edit.png`, fullPage: true });
  });

  await test.step("pick autousers with agent counts when creating an evaluation", async () => {
    await page.goto("/evaluations/new");
    await page.getByLabel("Name", { exact: true }).fill("Checkout with personas");
    await page.getByLabel("Design URLs").fill("https://example.com/checkout");
    await page.getByRole("checkbox", { name: "Power user" }).check();
    await page.getByLabel("Agents for Power user").fill("3");
    await page.getByRole("checkbox", { name: "Screen-reader user" }).check();
    await page.screenshot({ path: `${SCREENSHOT_DIR}/evaluation-autousers.png`, fullPage: true });
    await page.getByRole("button", { name: "Create evaluation" }).click();
    await expect(page).toHaveURL(/\/evaluations\/eval_[^/]+$/);
    const id = page.url().split("/").pop();
    const res = await page.request.get(`/api/v1/evaluations/${id}`);
    expect(res.status()).toBe(200);
    const evaluation = (await res.json()) as {
      selectedAutousers: { autouserId: string; agentCount: number }[];
    };
    expect(evaluation.selectedAutousers).toEqual(
      expect.arrayContaining([
        { autouserId: "auto_power_user", agentCount: 3 },
        { autouserId: "auto_screen_reader_user", agentCount: 1 },
      ]),
    );
    expect(evaluation.selectedAutousers).toHaveLength(2);
  });
});
