import { expect, test } from "@playwright/test";
import { confirmDialog, freshVisitor, shareLinkOf, signUp } from "./helpers";

const SCREENSHOT_DIR = process.env.E2E_SCREENSHOT_DIR ?? "/tmp";

test("share link states: unknown links are 404, team-only links ask to sign in and bring you back", async ({
  page,
  browser,
}) => {
  const email = await signUp(page);
  const name = `Team only ${Date.now()}`;
  await page.getByRole("link", { name: "New evaluation" }).first().click();
  await page.getByLabel("Name").fill(name);
  await page.getByLabel("Design URLs").fill("https://example.com/");
  await page.getByRole("button", { name: "Create evaluation" }).click();
  await expect(page.getByTestId("evaluation-status")).toHaveText("Draft");
  const shareUrl = await shareLinkOf(page);

  await test.step("a draft cannot be rated yet and has no results", async () => {
    const detailUrl = page.url();
    await page.goto(`${detailUrl}/rate`);
    await expect(page.getByRole("heading", { name: "Not started yet" })).toBeVisible();
    await page.goto(`${detailUrl}/results`);
    await expect(page.getByRole("heading", { name: "No ratings yet" })).toBeVisible();
    await expect(page.getByTestId("tile-ratings")).toHaveText("0");
    await expect(page.getByTestId("tile-alpha")).toHaveText("—");
    await page.goto(detailUrl);
  });

  const visitor = await freshVisitor(browser);
  await test.step("a draft's link and an unknown link answer 404", async () => {
    const draft = await visitor.goto(shareUrl);
    expect(draft?.status()).toBe(404);
    await expect(
      visitor.getByRole("heading", { name: "This link does not lead to an evaluation" }),
    ).toBeVisible();
    const unknown = await visitor.goto(new URL("/share/no-such-link", shareUrl).toString());
    expect(unknown?.status()).toBe(404);
  });

  await test.step("once running, a visitor is asked to sign in and lands back on the link as a member", async () => {
    await page.getByRole("button", { name: "Move to Running" }).click();
    await expect(page.getByTestId("evaluation-status")).toHaveText("Running");
    await visitor.goto(shareUrl);
    await expect(visitor.getByRole("heading", { name: "Sign in to rate" })).toBeVisible();
    await visitor.getByRole("link", { name: "Sign in to rate" }).click();
    await expect(visitor).toHaveURL(/\/sign-in\?next=/);
    await visitor.getByLabel("Email").fill(email);
    await visitor.getByLabel("Password").fill("correct horse battery");
    await visitor.getByRole("button", { name: "Sign in" }).click();
    await expect(visitor).toHaveURL(shareUrl);
    await expect(visitor.getByTestId("rater-identity")).toContainText("Rating as team member");
    await expect(visitor.getByTestId("rating-progress")).toHaveText("1 of 1");
  });

  await test.step("after it ends, the link says so", async () => {
    await page.getByRole("button", { name: "Move to Ended" }).click();
    await confirmDialog(page, "Move to Ended");
    await expect(page.getByTestId("evaluation-status")).toHaveText("Ended");
    await visitor.reload();
    await expect(visitor.getByRole("heading", { name: "This evaluation has ended" })).toBeVisible();
  });
  await visitor.context().close();
});

test("a password-protected link asks for the password and an email before rating", async ({
  page,
  browser,
}) => {
  await signUp(page);
  await page.getByRole("link", { name: "New evaluation" }).first().click();
  await page.getByLabel("Name").fill(`Landing page ${Date.now()}`);
  await page.getByLabel("Design URLs").fill("https://example.com/landing");
  await page.getByLabel("Share access").selectOption("PASSWORD_PROTECTED");
  await page.getByLabel("Share password").fill("open sesame");
  await page.getByLabel("Ask raters for their email").check();
  await page.getByLabel("Start collecting ratings now").check();
  await page.getByRole("button", { name: "Create evaluation" }).click();
  await expect(page.getByText("Email asked")).toBeVisible();
  const shareUrl = await shareLinkOf(page);

  const rater = await freshVisitor(browser);
  await rater.setViewportSize({ width: 390, height: 844 });
  await rater.goto(shareUrl);
  await expect(rater.getByText("This evaluation is password protected.")).toBeVisible();
  await expect(rater.getByLabel("Your name")).toHaveCount(0);

  await test.step("the server's answer to a wrong password shows under the password field", async () => {
    await rater.getByLabel("Password", { exact: true }).fill("wrong guess");
    await rater.getByLabel("Your email").fill("not-an-email");
    await rater.getByRole("button", { name: "Start rating" }).click();
    await expect(rater.getByText("Enter a valid email address")).toBeVisible();
    await rater.getByLabel("Your email").fill("sam@example.com");
    await rater.getByRole("button", { name: "Start rating" }).click();
    await expect(rater.getByText("The password is not correct.")).toBeVisible();
    await expect(rater.getByLabel("Password", { exact: true })).toHaveAttribute("aria-invalid", "true");
  });

  await test.step("the right password starts rating", async () => {
    await rater.getByLabel("Password", { exact: true }).fill("open sesame");
    await rater.getByRole("button", { name: "Start rating" }).click();
    await expect(rater.getByTestId("rating-progress")).toHaveText("1 of 1");
    await rater
      .getByRole("group", { name: /Overall quality/ })
      .getByRole("button", { name: "5 – Good" })
      .click();
    await rater.screenshot({ path: `${SCREENSHOT_DIR}/share-mobile.png`, fullPage: true });
    await rater.getByRole("button", { name: "Submit rating" }).click();
    await expect(rater.getByRole("heading", { name: "All done — thank you!" })).toBeVisible();
  });

  await page.reload();
  const row = page
    .getByRole("region", { name: "Public raters" })
    .getByRole("row")
    .filter({ hasText: "sam@example.com" });
  await expect(row.getByRole("cell").nth(2)).toHaveText("1");
  await rater.context().close();
});

test("the rating window closes at the target; a rater still on the page is told", async ({
  page,
  browser,
}) => {
  await signUp(page);
  await page.getByRole("link", { name: "New evaluation" }).first().click();
  await page.getByLabel("Name").fill(`One rating wanted ${Date.now()}`);
  await page.getByLabel("Design URLs").fill("https://example.com/hero");
  await page.getByLabel("Share access").selectOption("ANYONE_WITH_LINK");
  await page.getByLabel("Target ratings per comparison").fill("1");
  await page.getByLabel("Start collecting ratings now").check();
  await page.getByRole("button", { name: "Create evaluation" }).click();
  await expect(page.getByTestId("rating-window")).toHaveText("Closes at 1 human rating per comparison");
  const shareUrl = await shareLinkOf(page);

  const [first, second] = [await freshVisitor(browser), await freshVisitor(browser)];
  for (const rater of [first, second]) {
    await rater.goto(shareUrl);
    await rater.getByRole("button", { name: "Start rating" }).click();
    await rater
      .getByRole("group", { name: /Overall quality/ })
      .getByRole("button", { name: "3 – Fair" })
      .click();
  }
  await first.getByRole("button", { name: "Submit rating" }).click();
  await expect(first.getByRole("heading", { name: "All done — thank you!" })).toBeVisible();

  await second.getByRole("button", { name: "Submit rating" }).click();
  await expect(second.getByRole("heading", { name: "No longer taking ratings" })).toBeVisible();

  await page.reload();
  await expect(page.getByTestId("evaluation-status")).toHaveText("Ended");
  await expect(page.getByRole("link", { name: "Rate", exact: true })).toHaveCount(0);
  await first.context().close();
  await second.context().close();
});
