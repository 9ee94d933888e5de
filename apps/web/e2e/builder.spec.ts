import { expect, test } from "@playwright/test";
import { signUp } from "./helpers";

const SCREENSHOT_DIR = process.env.E2E_SCREENSHOT_DIR ?? "/tmp";

test("chat an evaluation into existence, create it and start it", async ({ page }) => {
  await test.step("sign up and open the builder", async () => {
    await signUp(page);
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Builder" }).click();
    await expect(page).toHaveURL(/\/builder$/);
    await page.getByRole("button", { name: "New conversation" }).click();
    await expect(page).toHaveURL(/\/builder\/conv_/);
  });

  await test.step("the first message leaves the drafts incomplete and says what is missing", async () => {
    await page
      .getByLabel("Message")
      .fill("Compare the new checkout with the old one for first-time mobile shoppers");
    await page.getByRole("button", { name: "Send" }).click();
    const chat = page.getByRole("region", { name: "Chat" });
    await expect(chat.getByRole("listitem", { name: "Assistant" }).last()).toContainText(
      "Here is what I understood",
    );
    await expect(chat).toContainText("What I still need");
    await expect(page.getByRole("status", { name: "What is missing" })).toContainText(
      "evaluation.comparisonPairs",
    );
    await expect(page.getByRole("button", { name: "Create evaluation" })).toHaveCount(0);
  });

  await test.step("a second message with the links makes them ready", async () => {
    await page
      .getByLabel("Message")
      .fill("Old: https://shop.example/checkout-old new: https://shop.example/checkout-new, and check trust");
    await page.getByRole("button", { name: "Send" }).click();
    await expect(page.getByRole("list", { name: "Drafted templates" })).toContainText("Trust (new)");
    await expect(page.getByRole("list", { name: "Drafted autousers" })).toContainText(
      "auto_first_time_visitor",
    );
    await expect(page.getByLabel("Type")).toHaveValue("SxS");
    await expect(page.getByRole("button", { name: "Create evaluation" })).toBeVisible();
    await page.screenshot({ path: `${SCREENSHOT_DIR}/builder-chat.png`, fullPage: true });
  });

  await test.step("the drafts are editable", async () => {
    await page.getByLabel("Evaluation name").fill("Checkout: old against new");
    await page.getByRole("button", { name: "Save drafts" }).click();
    await expect(page.getByRole("heading", { level: 1 })).toHaveText("Checkout: old against new");
  });

  await test.step("create the evaluation and start it", async () => {
    await page.getByRole("button", { name: "Create evaluation" }).click();
    await page.getByRole("link", { name: "Open the evaluation" }).click();
    await expect(page).toHaveURL(/\/evaluations\/eval_/);
    await expect(page.getByRole("heading", { name: "Checkout: old against new" })).toBeVisible();
    await page.getByRole("button", { name: "Move to Running" }).click();
    await expect(page.getByRole("button", { name: "Move to Ended" })).toBeVisible();
  });
});
