import { expect, test } from "@playwright/test";
import { signUp } from "./helpers";

/** A 1x1 PNG and a 1x1 GIF: real images the upload's content check recognises. */
const PNG = Buffer.from(
  "89504e470d0a1a0a0000000d4948445200000001000000010806000000" +
    "1f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082",
  "hex",
);
const GIF = Buffer.from(
  "47494638396101000100800000ffffff00000021f90401000000002c00000000010001000002024401003b",
  "hex",
);

test("mock-ups uploaded in the create form become an SxS evaluation that a team member and a share-link rater rate", async ({
  page,
  browser,
}) => {
  const name = `Mock-ups ${Date.now()}`;
  await signUp(page);
  await page.getByRole("link", { name: "New evaluation" }).first().click();
  await page.getByLabel("Name").fill(name);
  await page.getByText("SxS — side by side").click();

  // A page dressed as an image is refused with the reason; the real mock-ups are taken.
  await page.getByLabel("Or upload version A of pair 1").setInputFiles({
    name: "fake.png",
    mimeType: "image/png",
    buffer: Buffer.from("<html><body>not an image</body></html>"),
  });
  await expect(page.getByRole("alert").filter({ hasText: "not a recognised media type" })).toBeVisible();
  await page.getByLabel("Or upload version A of pair 1").setInputFiles({
    name: "current.png",
    mimeType: "image/png",
    buffer: PNG,
  });
  await expect(page.getByText("Uploaded current.png")).toBeVisible();
  await page.getByLabel("Or upload version B of pair 1").setInputFiles({
    name: "variant.gif",
    mimeType: "image/gif",
    buffer: GIF,
  });
  await expect(page.getByText("Uploaded variant.gif")).toBeVisible();
  await page.getByLabel("Share access").selectOption("ANYONE_WITH_LINK");
  await page.getByLabel("Start collecting ratings now").check();
  await page.getByRole("button", { name: "Create evaluation" }).click();
  await expect(page.getByTestId("evaluation-status")).toHaveText("Running");
  const shareUrl = await page
    .getByRole("region", { name: "Share link" })
    .getByRole("textbox", { name: "Share link" })
    .inputValue();

  await test.step("a team member rates the uploaded pair on the rating screen", async () => {
    await page.getByRole("link", { name: "Rate", exact: true }).click();
    const a = page.getByRole("region", { name: "Version A" }).getByRole("img");
    const b = page.getByRole("region", { name: "Version B" }).getByRole("img");
    await expect(a).toBeVisible();
    // The images really loaded, through the API's redirect to a signed URL.
    await expect.poll(() => a.evaluate((img: HTMLImageElement) => img.naturalWidth)).toBe(1);
    await expect.poll(() => b.evaluate((img: HTMLImageElement) => img.naturalWidth)).toBe(1);
    const control = page.getByRole("group", { name: /Overall quality/ });
    await control.getByRole("button", { name: "B better", exact: true }).click();
    await page.getByRole("button", { name: "Submit rating" }).click();
    await expect(page.getByRole("heading", { name: /All done/ })).toBeVisible();
  });

  await test.step("a rater with only the share link sees the same files", async () => {
    const rater = await (await browser.newContext()).newPage();
    await rater.goto(shareUrl);
    await rater.getByRole("button", { name: "Start rating" }).click();
    const img = rater.getByRole("region", { name: "Version B" }).getByRole("img");
    await expect.poll(() => img.evaluate((el: HTMLImageElement) => el.naturalWidth)).toBe(1);
    await rater
      .getByRole("group", { name: /Overall quality/ })
      .getByRole("button", { name: "A better", exact: true })
      .click();
    await rater.getByRole("button", { name: "Submit rating" }).click();
    await expect(rater.getByRole("heading", { name: "All done — thank you!" })).toBeVisible();
    await rater.context().close();
  });
});
