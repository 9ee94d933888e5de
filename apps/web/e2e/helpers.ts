import { type Browser, expect, type Page } from "@playwright/test";

/** A mailbox no earlier run has used, so each test signs up a fresh user with an empty team. */
export function uniqueEmail(): string {
  return `e2e-${Date.now()}-${Math.random().toString(36).slice(2, 8)}@example.com`;
}

/** Signs up through the form and waits for the dashboard's landing page. */
export async function signUp(page: Page, email = uniqueEmail()): Promise<string> {
  await page.goto("/sign-up");
  await page.getByLabel("Name").fill("E2E Tester");
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill("correct horse battery");
  await page.getByRole("button", { name: "Create account" }).click();
  // Password hashing is deliberately slow, and slower still on a loaded machine.
  await expect(page).toHaveURL(/\/evaluations$/, { timeout: 30_000 });
  return email;
}

/** Opens a section of the Settings area the way a user does: Settings in the top bar, then the section's link. */
export async function openSettings(page: Page, section: string): Promise<void> {
  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Settings" }).click();
  await expect(page).toHaveURL(/\/settings$/);
  await page.getByRole("navigation", { name: "Settings" }).getByRole("link", { name: section }).click();
}

/** Answers the app's confirmation dialog with its confirming button (e.g. "Delete"). */
export async function confirmDialog(page: Page, button: string): Promise<void> {
  const dialog = page.getByRole("dialog");
  await dialog.getByRole("button", { name: button, exact: true }).click();
  await expect(dialog).toBeHidden();
}

/** Accepts the newest invitation from the notifications menu, as its e-mail's link would. */
export async function acceptInvitation(page: Page): Promise<void> {
  await page.goto("/evaluations");
  await page.getByRole("button", { name: /Notifications/ }).click();
  await page
    .getByRole("link", { name: /invited you to/ })
    .first()
    .click();
  await page.getByRole("button", { name: "Accept invitation" }).click();
  await expect(page.getByRole("status")).toContainText("Invitation accepted.");
}

/** The share link as the detail page shows it (absolute, on the server's BASE_URL). */
export async function shareLinkOf(page: Page): Promise<string> {
  const link = await page
    .getByRole("region", { name: "Share link" })
    .getByRole("textbox", { name: "Share link" })
    .inputValue();
  expect(link).toMatch(/\/share\/[A-Za-z0-9_-]+$/);
  return link ?? "";
}

/** A visitor with no session and no rater cookie: a separate browser context. */
export async function freshVisitor(browser: Browser): Promise<Page> {
  const context = await browser.newContext();
  return context.newPage();
}
