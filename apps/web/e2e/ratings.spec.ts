import { expect, test } from "@playwright/test";
import { freshVisitor, shareLinkOf, signUp } from "./helpers";

const SCREENSHOT_DIR = process.env.E2E_SCREENSHOT_DIR ?? "/tmp";

test("public raters and a team member rate an SSE evaluation; results show counts, distribution and agreement", async ({
  page,
  browser,
}) => {
  // Eight steps across two browser contexts (a rater and the owner): on a loaded machine more than one page's time.
  test.setTimeout(180_000);
  const name = `Pricing page ${Date.now()}`;
  let shareUrl = "";
  let evaluationUrl = "";

  await test.step("create a running SSE evaluation shared with anyone, asking raters' names", async () => {
    await signUp(page);
    await page.getByRole("link", { name: "New evaluation" }).first().click();
    await page.getByLabel("Name").fill(name);
    await page.getByLabel("Design URLs").fill("https://example.com/pricing\nhttps://example.com/pricing-v2");
    await page.getByLabel("Share access").selectOption("ANYONE_WITH_LINK");
    await page.getByLabel("Ask raters for their name").check();
    await page.getByLabel("Deadline").fill("2099-06-30T17:00");
    await page.getByLabel("Target ratings per comparison").fill("10");
    await page.getByLabel("Start collecting ratings now").check();
    await page.screenshot({ path: `${SCREENSHOT_DIR}/evaluation-create.png`, fullPage: true });
    await page.getByRole("button", { name: "Create evaluation" }).click();
    await expect(page).toHaveURL(/\/evaluations\/eval_[^/]+$/);
    evaluationUrl = page.url();
    await expect(page.getByTestId("evaluation-status")).toHaveText("Running");
    await expect(page.getByTestId("rating-window")).toContainText("2099");
    await expect(page.getByTestId("rating-window")).toContainText("10 human ratings per comparison");
    await expect(page.getByText("Name asked")).toBeVisible();
    await expect(page.getByRole("region", { name: "Public raters" })).toContainText("Nobody has started");
    shareUrl = await shareLinkOf(page);
  });

  await test.step("a visitor opens the share link, gives their name and rates both designs", async () => {
    const rater = await freshVisitor(browser);
    await rater.goto(shareUrl);
    await expect(rater.getByRole("heading", { name })).toBeVisible();
    await expect(rater.getByRole("heading", { name: "Before you start" })).toBeVisible();

    // The name is required before starting.
    await rater.getByRole("button", { name: "Start rating" }).click();
    await expect(rater.getByText("Enter your name.")).toBeVisible();
    await rater.getByLabel("Your name").fill("Robin Rater");
    await rater.screenshot({ path: `${SCREENSHOT_DIR}/share-start.png`, fullPage: true });
    await rater.getByRole("button", { name: "Start rating" }).click();

    const progress = rater.getByTestId("rating-progress");
    await expect(progress).toHaveText("1 of 2");
    await expect(rater.getByTestId("rater-identity")).toContainText("Robin Rater");
    await expect(rater.getByRole("link", { name: "https://example.com/pricing" })).toBeVisible();

    const scale = rater.getByRole("group", { name: /Overall quality/ });
    await expect(scale.getByRole("button")).toHaveCount(7);
    const submit = rater.getByRole("button", { name: "Submit rating" });
    await expect(submit).toBeDisabled();
    await scale.getByRole("button", { name: "6 – Very good" }).click();
    await expect(scale.getByRole("button", { name: "6 – Very good" })).toHaveAttribute(
      "aria-pressed",
      "true",
    );
    // Guidelines are folded away until asked for.
    await rater.getByText("Guidelines").click();
    await expect(rater.getByText(/Judge the whole experience/)).toBeVisible();
    await rater.getByLabel("Justification").fill("Prices are easy to compare.");
    await rater.screenshot({ path: `${SCREENSHOT_DIR}/share-rating.png`, fullPage: true });
    await submit.click();

    await expect(progress).toHaveText("2 of 2");
    await expect(rater.getByRole("link", { name: "https://example.com/pricing-v2" })).toBeVisible();
    // Keyboard: focus a point and move along the scale with the arrow keys.
    await scale.getByRole("button", { name: "3 – Fair" }).focus();
    await rater.keyboard.press("ArrowRight");
    await rater.keyboard.press("Enter");
    await expect(scale.getByRole("button", { name: "4 – Neutral" })).toHaveAttribute("aria-pressed", "true");
    await submit.click();

    await expect(rater.getByRole("heading", { name: "All done — thank you!" })).toBeVisible();
    await expect(rater.getByText("You rated 2 comparisons.")).toBeVisible();
    await rater.screenshot({ path: `${SCREENSHOT_DIR}/share-finished.png`, fullPage: true });

    // Coming back, the rater is remembered and has nothing left to rate.
    await rater.reload();
    await expect(
      rater.getByText("You have already rated all 2 comparisons in this evaluation."),
    ).toBeVisible();
    await rater.context().close();
  });

  await test.step("the owner sees the public rater on the detail page", async () => {
    await page.reload();
    const row = page
      .getByRole("region", { name: "Public raters" })
      .getByRole("row")
      .filter({ hasText: "Robin Rater" });
    await expect(row).toBeVisible();
    await expect(row.getByRole("cell").nth(2)).toHaveText("2");
    await page.screenshot({ path: `${SCREENSHOT_DIR}/evaluation-detail.png`, fullPage: true });
  });

  await test.step("the owner rates one comparison from the dashboard and skips the other", async () => {
    await page.getByRole("link", { name: "Rate", exact: true }).click();
    await expect(page).toHaveURL(/\/evaluations\/eval_[^/]+\/rate$/);
    await expect(page.getByTestId("rating-progress")).toHaveText("1 of 2");
    const scale = page.getByRole("group", { name: /Overall quality/ });
    await scale.getByRole("button", { name: "7 – Excellent" }).click();
    await page.screenshot({ path: `${SCREENSHOT_DIR}/dashboard-rate.png`, fullPage: true });
    await page.getByRole("button", { name: "Submit rating" }).click();

    await expect(page.getByTestId("rating-progress")).toHaveText("2 of 2");
    await page.getByRole("button", { name: "Skip", exact: true }).click();
    await page.getByRole("button", { name: "Skip comparison" }).click();
    await expect(page.getByText("Say briefly why you are skipping")).toBeVisible();
    await page.getByLabel("Reason for skipping").fill("The page did not load for me.");
    await page.getByRole("button", { name: "Skip comparison" }).click();

    await expect(page.getByRole("heading", { name: "All done" })).toBeVisible();
    await expect(page.getByText("You rated 1 comparison and skipped 1.")).toBeVisible();
  });

  await test.step("the results page shows counts, the distribution and the mean", async () => {
    await page.getByRole("link", { name: "See results" }).click();
    await expect(page).toHaveURL(/\/evaluations\/eval_[^/]+\/results$/);
    await expect(page.getByRole("heading", { name: "Results", exact: true })).toBeVisible();
    await expect(page.getByTestId("tile-ratings")).toHaveText("4");
    await expect(page.getByTestId("tile-humans")).toHaveText("4");
    await expect(page.getByTestId("tile-autousers")).toHaveText("0");
    await expect(page.getByTestId("tile-excluded")).toHaveText("1");

    const overall = page.getByTestId("result-overall");
    await expect(overall).toContainText("3 scores");
    await expect(overall.getByTestId("mean")).toHaveText("5.67");
    // The t-interval of three scores runs to 9.46 on a 1-7 scale: shown cut to the scale, saying why.
    await expect(overall).toContainText(
      "95% CI 1.87 to 7.00 (cut to the scale, 1 to 7: 3 ratings are too few for a narrower interval)",
    );
    await expect(
      overall.getByRole("img", { name: /Distribution of Overall quality scores/ }),
    ).toHaveAttribute("aria-label", /1: 0, 2: 0, 3: 0, 4: 1, 5: 0, 6: 1, 7: 1$/);
    await expect(overall.getByTestId("bar-7")).toHaveAttribute("data-count", "1");
    await expect(
      overall.getByRole("img", { name: /Mean Overall quality: 5\.67, 95% interval/ }),
    ).toBeVisible();

    const byComparison = page.getByRole("region", { name: "By comparison" });
    const second = byComparison.getByRole("row").filter({ hasText: "example.com/pricing-v2" });
    // #, comparison, the mean, ratings, skipped: the mean comes first so a phone shows it beside the name.
    await expect(second.getByRole("cell").nth(2)).toContainText("4.00");
    await expect(second.getByRole("cell").nth(3)).toHaveText("2");
    await expect(second.getByRole("cell").nth(4)).toHaveText("1");

    const byRater = page.getByRole("region", { name: "By rater" });
    await expect(byRater.getByRole("row").filter({ hasText: "Robin Rater" })).toContainText("Share link");
    // Rater, the mean, type, ratings, skipped.
    await expect(byRater.getByRole("row").filter({ hasText: "(you)" }).getByRole("cell").nth(4)).toHaveText(
      "1",
    );
    await page.screenshot({ path: `${SCREENSHOT_DIR}/results-sse.png`, fullPage: true });
  });

  await test.step("switch the agreement metric and look at the rater groups", async () => {
    const agreement = page.getByRole("region", { name: "Rater agreement" });
    await expect(agreement.getByRole("radio", { name: "Ordinal" })).toBeChecked();
    await expect(agreement.getByText("(the default for this evaluation type)")).toBeVisible();
    await agreement.getByText("Interval", { exact: true }).click();
    await expect(agreement.getByRole("radio", { name: "Interval" })).toBeChecked();
    await expect(agreement.getByText(/^interval metric · 95% intervals/)).toBeVisible();
    await expect(agreement.getByRole("listitem", { name: /^All templates: / })).toBeVisible();

    // Nobody automated rated, so that group has nothing to agree on.
    await agreement
      .getByRole("button", { name: /Autousers/ })
      .first()
      .click();
    await expect(agreement.getByRole("listitem", { name: /^All templates: Not enough data/ })).toBeVisible();
  });

  await test.step("exports answer with the session cookie", async () => {
    const csv = page.getByRole("link", { name: "Export CSV" });
    const res = await page.request.get((await csv.getAttribute("href")) ?? "");
    expect(res.status()).toBe(200);
    expect(res.headers()["content-type"]).toContain("text/csv");
    expect((await res.text()).split("\n").filter(Boolean).length).toBeGreaterThan(1);
    const json = await page.request.get(
      (await page.getByRole("link", { name: "Export JSON" }).getAttribute("href")) ?? "",
    );
    expect(json.status()).toBe(200);
    expect(((await json.json()) as { ratings: unknown[] }).ratings).toHaveLength(4);
  });

  await test.step("the review link of the API leads to the rating screen", async () => {
    await page.goto(`${evaluationUrl}/review`);
    await expect(page).toHaveURL(/\/rate$/);
  });
});

test("side by side through the share link: the -3..+3 preference control and the winner", async ({
  page,
  browser,
}) => {
  const name = `Checkout A/B ${Date.now()}`;
  let shareUrl = "";

  await test.step("create a running SxS evaluation with one pair", async () => {
    await signUp(page);
    await page.getByRole("link", { name: "New evaluation" }).first().click();
    await page.getByLabel("Name").fill(name);
    await page.getByText("SxS — side by side").click();
    await page.getByLabel("Pair 1 version A URL").fill("https://example.com/checkout");
    await page.getByLabel("Pair 1 version B URL").fill("https://example.com/checkout-v2");
    await page.getByLabel("Share access").selectOption("ANYONE_WITH_LINK");
    await page.getByLabel("Start collecting ratings now").check();
    await page.getByRole("button", { name: "Create evaluation" }).click();
    await expect(page.getByTestId("evaluation-status")).toHaveText("Running");
    shareUrl = await shareLinkOf(page);
  });

  for (const [i, choice] of (["B much better", "B better"] as const).entries()) {
    await test.step(`rater ${i + 1} prefers ${choice}`, async () => {
      const rater = await freshVisitor(browser);
      await rater.goto(shareUrl);
      await expect(rater.getByRole("heading", { name: "Ready when you are" })).toBeVisible();
      await rater.getByRole("button", { name: "Start rating" }).click();
      await expect(rater.getByTestId("rating-progress")).toHaveText("1 of 1");
      await expect(rater.getByRole("region", { name: "Version A" })).toContainText(
        "https://example.com/checkout",
      );
      await expect(rater.getByRole("region", { name: "Version B" })).toContainText(
        "https://example.com/checkout-v2",
      );

      const control = rater.getByRole("group", { name: /Overall quality/ });
      await expect(control.getByRole("button")).toHaveCount(7);
      for (const label of [
        "A much better",
        "A better",
        "A slightly better",
        "About the same",
        "B slightly better",
      ]) {
        await expect(control.getByRole("button", { name: label, exact: true })).toBeVisible();
      }
      await control.getByRole("button", { name: choice, exact: true }).click();
      await expect(control.getByRole("button", { name: choice, exact: true })).toHaveAttribute(
        "aria-pressed",
        "true",
      );
      if (i === 0) await rater.screenshot({ path: `${SCREENSHOT_DIR}/share-sxs.png`, fullPage: true });
      await rater.getByRole("button", { name: "Submit rating" }).click();
      await expect(rater.getByRole("heading", { name: "All done — thank you!" })).toBeVisible();
      await rater.context().close();
    });
  }

  await test.step("results: B wins both, the mean leans to B, the interval is still too wide", async () => {
    await page.getByRole("link", { name: "Results" }).click();
    await expect(page.getByTestId("tile-ratings")).toHaveText("2");
    const overall = page.getByTestId("result-overall");
    await expect(overall.getByTestId("win-bar")).toHaveAttribute("aria-label", "A wins 0, ties 0, B wins 2");
    await expect(overall.getByTestId("mean")).toHaveText("+2.50");
    await expect(overall.getByTestId("winner")).toHaveText("Inconclusive");
    // Two preferences give an interval of -3.85 to +8.85; no mean can leave -3 to +3.
    await expect(overall).toContainText(
      "95% CI -3.00 to +3.00 (cut to the scale, -3 to +3: 2 ratings are too few for a narrower interval) · includes 0",
    );
    await expect(
      overall.getByRole("img", { name: /Distribution of Overall quality preferences/ }),
    ).toHaveAttribute("aria-label", /-3: 0, -2: 0, -1: 0, 0: 0, \+1: 0, \+2: 1, \+3: 1$/);
    await expect(
      page.getByRole("region", { name: "Rater agreement" }).getByRole("radio", { name: "Interval" }),
    ).toBeChecked();
    await page.screenshot({ path: `${SCREENSHOT_DIR}/results-sxs.png`, fullPage: true });
  });
});
