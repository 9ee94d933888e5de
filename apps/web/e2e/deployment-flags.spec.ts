import { expect, test } from "@playwright/test";
import { type Deployment, startDeployment } from "@rubricon/vitest-config/dist";
import { signUp } from "./helpers";

/**
 * The shared e2e server runs with webhooks on and private URLs allowed (other specs need both). This spec starts a
 * second deployment from dist/ with the defaults a fresh one has: webhooks off, autousers limited to public addresses.
 */
const PORT = Number(process.env.E2E_PORT ?? 3107) + 1000;
let deployment: Deployment | undefined;

test.beforeAll(async () => {
  test.setTimeout(180_000);
  // dist/ with no setting beyond what a deployment needs: webhooks off, autousers limited to public addresses.
  deployment = await startDeployment({ worker: false, port: PORT });
});

test.afterAll(async () => {
  await deployment?.stop();
});

test.use({ baseURL: `http://127.0.0.1:${PORT}` });

test("with webhooks off, Settings marks them off and their pages name the setting instead of offering forms", async ({
  page,
}) => {
  await signUp(page);
  await page.goto("/settings");
  const settingsNav = page.getByRole("navigation", { name: "Settings" });
  await expect(settingsNav.getByRole("link", { name: "Webhooks" })).toContainText("Off");
  await expect(settingsNav.getByRole("link", { name: "Events" })).toContainText("Off");
  await expect(page.getByRole("listitem").filter({ hasText: "Endpoints Rubricon POSTs" })).toContainText(
    "WEBHOOKS_ENABLED=true",
  );

  for (const [link, heading] of [
    ["Webhooks", "Webhooks"],
    ["Events", "Events"],
  ] as const) {
    await settingsNav.getByRole("link", { name: link }).click();
    await expect(page.getByRole("heading", { name: heading, exact: true })).toBeVisible();
    await expect(page.getByTestId("webhooks-off")).toContainText("WEBHOOKS_ENABLED=true");
    await expect(page.getByRole("button", { name: "Add endpoint" })).toHaveCount(0);
    // No refused request behind it: the page never asked the API for what is off.
    await expect(page.getByRole("main").getByRole("alert")).toHaveCount(0);
  }
});

test("the new-evaluation form warns about a loopback design URL an autouser run would refuse", async ({
  page,
}) => {
  await signUp(page);
  await page.goto("/evaluations/new");
  const urls = page.getByLabel("Design URLs");
  await urls.fill("http://127.0.0.1:8080/checkout\nhttp://localhost/pricing");
  await urls.blur();
  const warning = page.getByTestId("url-policy-warning");
  await expect(warning).toContainText("Autousers cannot open these addresses on this deployment");
  await expect(warning).toContainText("http://127.0.0.1:8080/checkout, http://localhost/pricing");

  // The warning follows the field: gone once the addresses are.
  await urls.fill("");
  await urls.blur();
  await expect(warning).toHaveCount(0);
});
