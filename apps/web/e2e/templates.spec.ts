import { expect, test } from "@playwright/test";
import { confirmDialog, signUp } from "./helpers";

const SCREENSHOT_DIR = process.env.E2E_SCREENSHOT_DIR ?? "/tmp";

test("create, edit, revert, duplicate and delete a template; system ones are read-only", async ({ page }) => {
  const name = `Clarity ${Date.now()}`;
  const guidelinesV1 = "Is the layout easy to scan?";
  const guidelinesV2 = "Can a first-time visitor find the primary action within five seconds?";
  const history = page.getByRole("region", { name: "Version history" });
  const version = (n: number) => history.getByRole("listitem", { name: `Version ${n}`, exact: true });

  await test.step("sign up and open Templates", async () => {
    await signUp(page);
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Templates" }).click();
    await expect(page).toHaveURL(/\/templates$/);
    await expect(page.getByRole("heading", { name: "Templates", exact: true })).toBeVisible();
  });

  await test.step("the system template is listed, marked System, and can only be duplicated", async () => {
    const row = page.getByRole("row").filter({ hasText: "Overall quality" });
    await expect(row).toBeVisible();
    await expect(row).toContainText("System");
    await expect(row).toContainText("1–7, seven-point");
    await expect(row.getByRole("button", { name: "Duplicate" })).toBeVisible();
    await expect(row.getByRole("button", { name: "Delete" })).toHaveCount(0);
    await expect(row.getByRole("link", { name: "Edit" })).toHaveCount(0);
    await page.screenshot({ path: `${SCREENSHOT_DIR}/templates-list.png`, fullPage: true });
  });

  await test.step("the form validates as the user types", async () => {
    await page.getByRole("link", { name: "New template" }).click();
    await expect(page).toHaveURL(/\/templates\/new$/);
    const save = page.getByRole("button", { name: "Save" });
    const nameInput = page.getByLabel("Name", { exact: true });

    await nameInput.fill("x".repeat(201));
    await expect(page.getByText("Must be at most 200 characters.")).toBeVisible();
    await expect(nameInput).toHaveAttribute("aria-invalid", "true");
    // The error is tied to its control, so a screen reader reads it with the field.
    await expect(nameInput).toHaveAccessibleDescription("Must be at most 200 characters.");
    await expect(page.getByLabel("Guidelines")).toHaveAccessibleDescription(
      "What raters should weigh when they score.",
    );
    await expect(save).toBeDisabled();

    await nameInput.fill(name);
    await expect(page.getByText("Must be at most 200 characters.")).toHaveCount(0);
    await expect(save).toBeEnabled();

    // A maximum that does not fit the scale type is an error until fixed.
    await page.getByLabel("Scale maximum").fill("9");
    await expect(page.getByText(/seven-point scale has 7 points/)).toBeVisible();
    await expect(save).toBeDisabled();

    // Picking a scale type brings the maximum along, and the per-point labels follow the range.
    await page.getByLabel("Scale type").selectOption("FIVE_POINT");
    await expect(page.getByLabel("Scale maximum")).toHaveValue("5");
    await expect(page.getByText(/scale has \d points/)).toHaveCount(0);
    await expect(page.getByLabel("Label for 5")).toBeVisible();
    await expect(page.getByLabel("Label for 6")).toHaveCount(0);
    await expect(save).toBeEnabled();
  });

  await test.step("save the new template", async () => {
    // Scoped to the form: the "Draft from a description" section above it has a label that says description too.
    await page
      .getByRole("form", { name: "Template" })
      .getByLabel("Description")
      .fill("How clear the design is.");
    await page.getByLabel("Type", { exact: true }).selectOption("TEXT_SSE");
    await page.getByLabel("Label for 1").fill("Confusing");
    await page.getByLabel("Label for 5").fill("Crystal clear");
    await page.getByLabel("Guidelines").fill(guidelinesV1);
    await page.getByLabel("Scale question").fill("How clear is this design?");
    await page.getByLabel("UI / UX").check();
    await page.getByLabel("Scoring mode").selectOption("rubric");
    await page.getByLabel("Open-text comments enabled").check();
    await page.getByRole("button", { name: "Save" }).click();

    await expect(page).toHaveURL(/\/templates\/(?!new$)[^/]+$/);
    await expect(page.getByRole("heading", { name })).toBeVisible();
    await expect(page.getByTestId("template-version")).toHaveText("Version 1");
    await expect(page.getByLabel("Scale maximum")).toHaveValue("5");
    await expect(page.getByLabel("Label for 5")).toHaveValue("Crystal clear");
    await expect(version(1)).toContainText("Created");
  });

  await test.step("edit the guidelines: version 2 names what changed", async () => {
    const save = page.getByRole("button", { name: "Save" });
    await expect(save).toBeDisabled();
    await page.getByLabel("Guidelines").fill(guidelinesV2);
    await expect(save).toBeEnabled();
    await save.click();
    await expect(page.getByTestId("template-version")).toHaveText("Version 2");
    await expect(version(2)).toContainText("guidelines");
    await expect(version(2)).toContainText("Current");
    await expect(page.getByLabel("Guidelines")).toHaveValue(guidelinesV2);
    await page.screenshot({ path: `${SCREENSHOT_DIR}/template-edit.png`, fullPage: true });
  });

  await test.step("revert to version 1: version 3 with the old guidelines", async () => {
    await expect(version(2).getByRole("button", { name: "Revert to this version" })).toHaveCount(0);
    await version(1).getByRole("button", { name: "Revert to this version" }).click();
    await expect(page.getByTestId("template-version")).toHaveText("Version 3");
    await expect(version(3)).toContainText("Reverted to version 1");
    await expect(page.getByLabel("Guidelines")).toHaveValue(guidelinesV1);
  });

  let copyUrl = "";
  await test.step("duplicate: lands on the copy", async () => {
    const originalUrl = page.url();
    await page.getByRole("button", { name: "Duplicate" }).click();
    await expect(page.getByRole("heading", { name: `${name} (copy)` })).toBeVisible();
    expect(page.url()).not.toBe(originalUrl);
    copyUrl = page.url();
    await expect(page.getByTestId("template-version")).toHaveText("Version 1");
    await expect(version(1)).toContainText("Duplicated");
    await expect(page.getByLabel("Guidelines")).toHaveValue(guidelinesV1);
  });

  await test.step("a template in use cannot be deleted; the server says why", async () => {
    const copyId = copyUrl.split("/").pop() ?? "";
    // Selecting templates for an evaluation has no UI yet, so the evaluation is made through the same tRPC API.
    // Cookie-authenticated writes must name our origin, as the browser would.
    const res = await page.request.post("/api/trpc/evaluations.create", {
      headers: { Origin: new URL(page.url()).origin },
      data: {
        name: `Uses ${copyId}`,
        type: "SSE",
        shareAccess: "TEAM_ONLY",
        designUrls: [{ url: "https://example.com/" }],
        selectedDimensionIds: [copyId],
      },
    });
    expect(res.status()).toBe(200);
    await page.getByRole("button", { name: "Delete" }).click();
    await confirmDialog(page, "Delete");
    await expect(page.getByRole("alert").filter({ hasText: "is used by evaluation" })).toBeVisible();
    await expect(page).toHaveURL(copyUrl);
  });

  await test.step("delete the original after confirming", async () => {
    await page.goto("/templates");
    const row = page.getByRole("row").filter({ has: page.getByRole("link", { name, exact: true }) });
    await expect(row).toContainText("1–5, five-point");
    await expect(row.getByRole("cell").nth(3)).toHaveText("3");
    await row.getByRole("button", { name: "Delete" }).click();
    await confirmDialog(page, "Delete");
    await expect(row).toHaveCount(0);
    await expect(page.getByRole("row").filter({ hasText: `${name} (copy)` })).toBeVisible();
  });

  await test.step("a system template is shown read-only", async () => {
    await page.goto("/templates/overall");
    await expect(page.getByRole("heading", { name: "Overall quality" })).toBeVisible();
    await expect(page.getByText("This is a system template and is read-only.")).toBeVisible();
    await expect(page.getByLabel("Name", { exact: true })).toHaveValue("Overall quality");
    await expect(page.getByLabel("Name", { exact: true })).toBeDisabled();
    await expect(page.getByLabel("Guidelines")).toBeDisabled();
    await expect(page.getByLabel("Label for 7")).toHaveValue("Excellent");
    await expect(page.getByRole("button", { name: "Save" })).toHaveCount(0);
    await expect(page.getByRole("button", { name: "Delete" })).toHaveCount(0);
    await expect(page.getByRole("button", { name: "Revert to this version" })).toHaveCount(0);
    await expect(page.getByRole("button", { name: "Duplicate" })).toBeEnabled();
  });
});
