import { expect, test } from "@playwright/test";
import { type ProviderServer, startAnthropicServer } from "@rubricon/agents/testing";
import { openSettings, signUp } from "./helpers";

const GOOD_KEY = "sk-ant-e2e-GOOD-secret-7a7a";
const WRONG_KEY = "sk-ant-e2e-WRONG-secret-9b9b";
const SCREENSHOT_DIR = process.env.E2E_SCREENSHOT_DIR ?? "/tmp";

let provider: ProviderServer;

test.beforeAll(async () => {
  provider = await startAnthropicServer({ apiKey: GOOD_KEY });
});
test.afterAll(async () => {
  await provider.close();
});

test("an owner saves a model key, tests and probes it, and removes it; the key is never shown", async ({
  page,
}) => {
  const form = page.getByRole("region", { name: "Your provider" });
  const effective = page.getByTestId("effective-model");
  const result = page.getByTestId("check-result");

  await test.step("open Model keys: no model yet", async () => {
    await signUp(page);
    await openSettings(page, "Model keys");
    await expect(page).toHaveURL(/\/settings\/model-keys$/);
    await expect(page.getByRole("heading", { name: "Model keys" })).toBeVisible();
    await expect(effective).toContainText("No model");
  });

  await test.step("a local server without its address is refused at the field", async () => {
    await form.getByLabel("Provider").selectOption("openai-compatible");
    await form.getByLabel("Model").fill("llama3.2");
    await form.getByRole("button", { name: "Save" }).click();
    await expect(form.getByRole("alert")).toContainText("baseUrl");
    await expect(form.getByLabel("Base URL")).toHaveAttribute("aria-invalid", "true");
    await expect(form.getByLabel("Base URL")).toHaveAccessibleDescription(
      "Required: the server's OpenAI-compatible address.",
    );
  });

  await test.step("save an Anthropic key (a wrong one); the page shows only its last four", async () => {
    await form.getByLabel("Provider").selectOption("anthropic");
    await form.getByLabel("Model").fill("claude-sonnet-4-5");
    await form.getByLabel("Base URL").fill(provider.baseUrl);
    await form.getByLabel("API key").fill(WRONG_KEY);
    await form.getByRole("button", { name: "Save" }).click();
    await expect(form.getByRole("status")).toHaveText("Settings saved.");
    await expect(effective).toContainText("This team's own key: anthropic / claude-sonnet-4-5");
    await expect(page.getByText("Saved key ends in …9b9b")).toBeVisible();
    await expect(form.getByLabel("API key")).toHaveValue("");
  });

  await test.step("Test names what is wrong with the saved key", async () => {
    await form.getByRole("button", { name: "Test" }).click();
    await expect(result).toContainText("The key does not work");
    await expect(result).toContainText("rejected the API key");
    await expect(result).toContainText("provider_auth");
    expect(provider.requests.at(-1)?.apiKey).toBe(WRONG_KEY);
  });

  await test.step("replace the key; Test and Probe succeed against the provider", async () => {
    await form.getByLabel("API key").fill(GOOD_KEY);
    await form.getByRole("button", { name: "Save" }).click();
    await expect(page.getByText("Saved key ends in …7a7a")).toBeVisible();

    provider.enqueue({ type: "text", text: "OK" });
    await form.getByRole("button", { name: "Test" }).click();
    await expect(result).toContainText("The key works: anthropic / claude-sonnet-4-5 answered in");
    await expect(result).toContainText("the saved key");

    provider.enqueue({ type: "json", value: { score: 5, reason: "clear" } });
    await form.getByRole("button", { name: "Probe" }).click();
    await expect(result).toContainText("Image input: yes (from the model table)");
    await expect(result).toContainText("Structured output: yes (checked by a call)");
    expect(provider.requests.at(-1)?.apiKey).toBe(GOOD_KEY);
    await page.screenshot({ path: `${SCREENSHOT_DIR}/model-keys.png`, fullPage: true });
  });

  await test.step("neither the page nor the API ever shows a key", async () => {
    const html = await page.content();
    expect(html).not.toContain("GOOD-secret");
    expect(html).not.toContain("WRONG-secret");
    const res = await page.request.get("/api/v1/settings/byok");
    expect(res.status()).toBe(200);
    const text = await res.text();
    expect(text).not.toContain("secret");
    expect(JSON.parse(text)).toMatchObject({ hasKey: true, keyHint: "7a7a", provider: "anthropic" });
  });

  await test.step("turn it off, then remove it: the heuristic judge applies again", async () => {
    await form.getByLabel("Use this key for the team's autousers and builder").uncheck();
    await form.getByRole("button", { name: "Save" }).click();
    await expect(effective).toContainText("No model");
    await form.getByRole("button", { name: "Remove" }).click();
    await expect(form.getByRole("status")).toHaveText("Settings and key removed.");
    await expect(page.getByText(/Saved key ends in/)).toHaveCount(0);
  });
});
