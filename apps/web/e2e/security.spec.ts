import { expect, test } from "@playwright/test";
import { signUp, uniqueEmail } from "./helpers";

test("every page forbids framing and sniffing, and runs under its content security policy", async ({
  page,
  request,
}) => {
  for (const path of ["/sign-in", "/evaluations", "/share/no-such-token"]) {
    const res = await request.get(path, { maxRedirects: 0 });
    const headers = res.headers();
    expect(headers["content-security-policy"], path).toContain("frame-ancestors 'none'");
    expect(headers["content-security-policy"], path).toContain("object-src 'none'");
    expect(headers["x-frame-options"], path).toBe("DENY");
    expect(headers["x-content-type-options"], path).toBe("nosniff");
    expect(headers["referrer-policy"], path).toBe("strict-origin-when-cross-origin");
  }
  const violations: string[] = [];
  page.on("console", (message) => {
    if (/Content Security Policy/i.test(message.text())) violations.push(message.text());
  });
  await signUp(page, uniqueEmail());
  await page.goto("/evaluations/new");
  await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
  expect(violations).toEqual([]);
});

test("after sign-in, `next` leads only to pages of this site", async ({ page }) => {
  const email = await signUp(page, uniqueEmail());
  await page.context().clearCookies();
  for (const next of ["/\\evil.example", "/\t/evil.example", "//evil.example", "https://evil.example/"]) {
    await page.goto(`/sign-in?next=${encodeURIComponent(next)}`);
    await page.getByLabel("Email").fill(email);
    await page.getByLabel("Password").fill("correct horse battery");
    await page.getByRole("button", { name: "Sign in" }).click();
    await expect(page).toHaveURL(/\/evaluations$/);
    expect(new URL(page.url()).host).toBe(new URL(test.info().project.use.baseURL!).host);
    await page.context().clearCookies();
  }
  await page.goto(`/sign-in?next=${encodeURIComponent("/templates")}`);
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill("correct horse battery");
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page).toHaveURL(/\/templates$/);
});
