import { type Browser, expect, type Page, test } from "@playwright/test";
import { acceptInvitation, signUp, uniqueEmail } from "./helpers";

async function newUser(browser: Browser): Promise<{ page: Page; email: string }> {
  const page = await (await browser.newContext()).newPage();
  const email = await signUp(page, uniqueEmail());
  return { page, email };
}

test("Settings is a page of its own with a side menu over every section", async ({ page }) => {
  await signUp(page);
  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Settings" }).click();
  await expect(page).toHaveURL(/\/settings$/);
  await expect(page).toHaveTitle("Settings · Rubricon");
  await expect(page.getByRole("heading", { name: "Settings", exact: true })).toBeVisible();
  const menu = page.getByRole("navigation", { name: "Settings" });
  await expect(menu.getByRole("link")).toHaveText([
    "Overview",
    "Members",
    "Access requests",
    "API keys",
    "Model keys",
    "Connected apps",
    "Plan & usage",
    "Webhooks",
    "Events",
  ]);
  await expect(menu.getByRole("link", { name: "Overview" })).toHaveAttribute("aria-current", "page");

  // Each section keeps the menu, marks itself, and keeps Settings current in the top bar.
  await menu.getByRole("link", { name: "API keys" }).click();
  await expect(page).toHaveURL(/\/api-keys$/);
  await expect(page.getByRole("heading", { name: "API keys", exact: true })).toBeVisible();
  await expect(menu.getByRole("link", { name: "API keys" })).toHaveAttribute("aria-current", "page");
  await expect(
    page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Settings" }),
  ).toHaveAttribute("aria-current", "page");
  // The product pages have no settings menu.
  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Templates" }).click();
  await expect(page.getByRole("heading", { name: "Templates", exact: true })).toBeVisible();
  await expect(page.getByRole("navigation", { name: "Settings" })).toHaveCount(0);
});

test("the sole owner is not offered to remove themselves; removing a member asks first, in a dialog", async ({
  browser,
}) => {
  const alice = await newUser(browser);
  const bob = await newUser(browser);
  const { page } = alice;
  await page.goto("/members");
  const team = page
    .getByRole("region")
    .filter({ has: page.getByRole("heading", { level: 2 }) })
    .first();
  const me = team.getByRole("row").filter({ hasText: alice.email });
  await expect(me.getByTestId("sole-owner")).toHaveText("Only owner");
  await expect(me.getByRole("button", { name: /Remove/ })).toHaveCount(0);

  await team.getByLabel("Email").fill(bob.email);
  await team.getByRole("button", { name: "Add member" }).click();
  // Bob joins by accepting the invitation his notification links to.
  await acceptInvitation(bob.page);
  await page.reload();
  const bobRow = team.getByRole("row").filter({ hasText: bob.email });
  await expect(bobRow).toBeVisible();

  // Cancel keeps him.
  await bobRow.getByRole("button", { name: `Remove ${bob.email}`, exact: false }).click();
  const dialog = page.getByRole("dialog");
  await expect(dialog).toContainText(`Remove ${bob.email} from`);
  await expect(dialog.getByRole("button", { name: "Cancel" })).toBeFocused();
  await page.keyboard.press("Escape");
  await expect(dialog).toBeHidden();
  await expect(bobRow).toBeVisible();

  // Confirming removes him.
  await bobRow.getByRole("button", { name: `Remove ${bob.email}`, exact: false }).click();
  await dialog.getByRole("button", { name: "Remove" }).click();
  await expect(team.getByRole("row").filter({ hasText: bob.email })).toHaveCount(0);
});
