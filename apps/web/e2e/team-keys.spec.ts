import { expect, test } from "@playwright/test";
import { confirmDialog, openSettings, signUp, uniqueEmail } from "./helpers";

test("an owner sees every key on the team, with who minted it, and revokes one", async ({ page }) => {
  const email = await signUp(page, uniqueEmail());
  await openSettings(page, "API keys");
  await page.getByLabel("Key name").fill("Nightly export");
  await page.getByLabel("evaluations:read", { exact: true }).check();
  await page.getByRole("button", { name: "Create key" }).click();
  await expect(page.getByRole("heading", { name: "Your new key “Nightly export”" })).toBeVisible();

  const team = page.getByRole("region", { name: /^All keys on / });
  await expect(team.getByRole("row", { name: /Nightly export/ })).toContainText(email);
  await page.screenshot({ path: test.info().outputPath("team-keys.png"), fullPage: true });

  await team.getByRole("button", { name: /^Revoke Nightly export on / }).click();
  await confirmDialog(page, "Revoke");
  await expect(team.getByText("No working keys on this team.")).toBeVisible();
  await expect(page.getByText("No API keys yet. Create one to get started.")).toBeVisible();
});
