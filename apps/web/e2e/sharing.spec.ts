import { type Browser, expect, type Page, test } from "@playwright/test";
import { acceptInvitation, openSettings, signUp, uniqueEmail } from "./helpers";

async function newUser(browser: Browser): Promise<{ page: Page; email: string }> {
  const context = await browser.newContext();
  const page = await context.newPage();
  const email = await signUp(page, uniqueEmail());
  return { page, email };
}

async function createEvaluation(page: Page, baseURL: string, body: Record<string, unknown>): Promise<string> {
  const res = await page.request.post("/api/v1/evaluations", {
    headers: { Origin: baseURL, "Content-Type": "application/json" },
    data: { type: "SSE", designUrls: [{ url: "https://example.com/a" }], ...body },
  });
  expect(res.status()).toBe(201);
  return ((await res.json()) as { id: string }).id;
}

test("an owner shares an evaluation from the Share dialog: by e-mail an invitation, alike for an account and a newcomer", async ({
  browser,
  baseURL,
}) => {
  const alice = await newUser(browser);
  const bob = await newUser(browser);
  const id = await createEvaluation(alice.page, baseURL!, { name: "Checkout study" });

  await alice.page.goto(`/evaluations/${id}`);
  await alice.page.getByRole("button", { name: "Share", exact: true }).click();
  const dialog = alice.page.getByRole("dialog", { name: "Share “Checkout study”" });
  await dialog.getByLabel("Email").fill(bob.email);
  await dialog.getByLabel("Permission", { exact: true }).selectOption("EDITOR");
  await dialog.getByRole("button", { name: "Share", exact: true }).click();
  // By e-mail, sharing invites, and says the same whether or not the address has an account.
  await expect(
    dialog.getByText(`We emailed ${bob.email} an invitation; they get access when they accept it.`),
  ).toBeVisible();
  await expect(dialog.getByRole("button", { name: `Withdraw the invite to ${bob.email}` })).toBeVisible();

  const newcomer = uniqueEmail();
  await dialog.getByLabel("Email").fill(newcomer);
  await dialog.getByRole("button", { name: "Share", exact: true }).click();
  await expect(
    dialog.getByText(`We emailed ${newcomer} an invitation; they get access when they accept it.`),
  ).toBeVisible();
  await expect(dialog.getByRole("button", { name: `Withdraw the invite to ${newcomer}` })).toBeVisible();
  await alice.page.screenshot({ path: test.info().outputPath("share-dialog.png") });

  // Bob is told in the dashboard too, and has access once he accepts.
  await acceptInvitation(bob.page);
  await bob.page.getByRole("link", { name: "Open the evaluation" }).click();
  await expect(bob.page.getByRole("heading", { name: "Checkout study" })).toBeVisible();
  await expect(bob.page.getByTestId("shared-with-you")).toHaveText("Shared with you · editor");
});

test("an outsider requests access and the owner approves it from the inbox", async ({ browser, baseURL }) => {
  const owner = await newUser(browser);
  const outsider = await newUser(browser);
  const id = await createEvaluation(owner.page, baseURL!, {
    name: "Link-shared study",
    status: "Running",
    shareAccess: "ANYONE_WITH_LINK",
  });

  await outsider.page.goto(`/evaluations/${id}`);
  await expect(outsider.page.getByRole("heading", { name: "Request access" })).toBeVisible();
  await outsider.page.getByLabel("Message to the owners (optional)").fill("I review checkouts.");
  await outsider.page.getByRole("button", { name: "Request access" }).click();
  await expect(outsider.page.getByTestId("access-request-status")).toContainText("pending");

  await owner.page.goto("/evaluations");
  await expect(owner.page.getByTestId("unread-count")).toHaveText("1");
  await openSettings(owner.page, "Access requests");
  const row = owner.page.getByTestId("access-request").filter({ hasText: outsider.email });
  await expect(row).toContainText("I review checkouts.");
  await owner.page.screenshot({ path: test.info().outputPath("access-requests.png") });
  await row.getByRole("button", { name: `Approve ${outsider.email}` }).click();
  await expect(owner.page.getByText("No pending requests.")).toBeVisible();

  await outsider.page.reload();
  await expect(outsider.page.getByRole("heading", { name: "Link-shared study" })).toBeVisible();
  await expect(outsider.page.getByTestId("shared-with-you")).toHaveText("Shared with you · viewer");
  await outsider.page.getByRole("button", { name: /Notifications/ }).click();
  await expect(outsider.page.getByTestId("notification").first()).toContainText("was approved");
});

test("a team owner adds a member on the Members page", async ({ browser }) => {
  const owner = await newUser(browser);
  const other = await newUser(browser);
  await openSettings(owner.page, "Members");
  const form = owner.page.getByRole("form", { name: /^Add a member to / });
  await form.getByLabel("Email").fill(other.email);
  await form.getByRole("button", { name: "Add member" }).click();
  // Nobody joins a team without saying yes: an existing account is invited like a new address.
  await expect(
    owner.page.getByText(`We emailed ${other.email} an invitation; they join the team when they accept it.`),
  ).toBeVisible();
  await expect(owner.page.getByLabel(`Role of ${other.email}`)).toHaveCount(0);
});
