import { expect, test } from "@playwright/test";
import { confirmDialog, signUp } from "./helpers";

test("Draft from a description fills the new autouser and new template forms; only Save saves", async ({
  page,
}) => {
  await signUp(page);

  await page.goto("/autousers/new");
  const autouserDraft = page.getByRole("region", { name: "Draft from a description" });
  await autouserDraft
    .getByLabel("Describe it in a paragraph")
    .fill("A first-time shopper on her phone who wants to find the delivery price.");
  await autouserDraft.getByRole("button", { name: "Draft" }).click();
  // The rule-based drafter (no model on this server): a name cut at 60 characters, the whole sentence as the role.
  await expect(page.getByLabel("Name", { exact: true })).toHaveValue(
    /^A first-time shopper on her phone who .*…$/,
  );
  await expect(page.getByLabel("Role", { exact: true })).toHaveValue(
    "A first-time shopper on her phone who wants to find the delivery price",
  );
  await expect(autouserDraft).toContainText("novice user on mobile");

  await page.goto("/templates/new");
  const templateDraft = page.getByRole("region", { name: "Draft from a description" });
  await templateDraft
    .getByLabel("Describe it in a paragraph")
    .fill("Compare two landing pages side by side on a five-point scale for clarity and trust.");
  await templateDraft.getByRole("button", { name: "Draft" }).click();
  await expect(page.getByLabel("Scale type")).toHaveValue("FIVE_POINT");
  await expect(page.getByLabel("Scale maximum")).toHaveValue("5");
  await expect(page.getByRole("textbox", { name: /Guidelines/ })).toHaveValue(/Criteria:\n- Clarity/);
});

test("Move to team moves an evaluation to another team the user administers", async ({ page, baseURL }) => {
  await signUp(page);
  const headers = { Origin: baseURL!, "Content-Type": "application/json" };
  const team = await page.request.post("/api/v1/teams", { headers, data: { name: "Research guild" } });
  expect(team.status()).toBe(201);
  const teamId = ((await team.json()) as { id: string }).id;
  const created = await page.request.post("/api/v1/evaluations", {
    headers,
    data: { name: "Checkout to move", type: "SSE", designUrls: [{ url: "https://example.com/a" }] },
  });
  expect(created.status()).toBe(201);
  const id = ((await created.json()) as { id: string }).id;

  await page.goto(`/evaluations/${id}`);
  const move = page.getByRole("region", { name: "Move to team" });
  await move.getByLabel("Team to move to").selectOption({ label: "Research guild" });
  await move.getByRole("button", { name: "Move to team" }).click();
  await expect(page.getByRole("dialog")).toContainText('Move "Checkout to move" to Research guild?');
  await confirmDialog(page, "Move to team");
  await expect(move.getByRole("status")).toContainText("Moved to Research guild.");

  const after = await page.request.get(`/api/v1/evaluations/${id}`);
  expect(((await after.json()) as { teamId: string }).teamId).toBe(teamId);
});
