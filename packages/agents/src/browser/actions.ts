import type { Locator, Page } from "playwright-core";
import type { ActionOutcome, AgentAction } from "../types";

type Role = Parameters<Page["getByRole"]>[0];

/** Roles tried, in order, when an action names no role: the things people click. */
const CLICKABLE_ROLES: Role[] = [
  "button",
  "link",
  "tab",
  "menuitem",
  "checkbox",
  "radio",
  "switch",
  "option",
  "combobox",
];

/** How long an action waits for its element to become actionable. */
const ACTION_TIMEOUT_MS = 5_000;

const quote = (text: string) => `'${text.length > 80 ? `${text.slice(0, 80)}…` : text}'`;

async function firstVisible(candidates: (() => Locator)[]): Promise<Locator | null> {
  for (const make of candidates) {
    const locator = make();
    const count = await locator.count();
    for (let i = 0; i < count; i++) {
      const item = locator.nth(i);
      if (await item.isVisible()) return item;
    }
  }
  return null;
}

/** The clickable element a person would mean by `name`: exact accessible name first, then a looser match. */
async function findClickable(
  page: Page,
  name: string,
  role?: string,
): Promise<{ locator: Locator; what: string } | null> {
  const roles = role ? [role as Role] : CLICKABLE_ROLES;
  for (const exact of [true, false]) {
    for (const r of roles) {
      const found = await firstVisible([() => page.getByRole(r, { name, exact })]);
      if (found) return { locator: found, what: `${r} ${quote(name)}` };
    }
  }
  const byText = await firstVisible([
    () => page.getByText(name, { exact: true }),
    () => page.getByText(name, { exact: false }),
  ]);
  return byText ? { locator: byText, what: `text ${quote(name)}` } : null;
}

/** The field a person would mean by `name`: its label, its placeholder, then its `name` attribute. */
async function findField(page: Page, name: string): Promise<Locator | null> {
  return firstVisible([
    () => page.getByLabel(name, { exact: true }),
    () => page.getByLabel(name, { exact: false }),
    () => page.getByPlaceholder(name, { exact: true }),
    () => page.getByPlaceholder(name, { exact: false }),
    () => page.locator(`[name="${name.replace(/["\\]/g, "\\$&")}"]`),
    () => page.getByRole("textbox", { name, exact: false }),
  ]);
}

export interface ActContext {
  page: Page;
  /** Waits for a navigation the action may have started and reports a refused one. */
  afterInteraction(): Promise<{ blockedUrl: string | null }>;
}

export async function performAction(ctx: ActContext, action: AgentAction): Promise<ActionOutcome> {
  const { page } = ctx;
  const outcome = (ok: boolean, detail: string): ActionOutcome => ({ ok, detail, urlAfter: page.url() });
  switch (action.type) {
    case "done":
      return outcome(true, action.reason ? `finished: ${action.reason}` : "finished");
    case "scroll": {
      const before = await page.evaluate(() => ({
        y: window.scrollY,
        max: document.documentElement.scrollHeight - window.innerHeight,
      }));
      const delta =
        Math.round((page.viewportSize()?.height ?? 600) * 0.8) * (action.direction === "down" ? 1 : -1);
      await page.evaluate((dy) => window.scrollBy(0, dy), delta);
      const y = await page.evaluate(() => Math.round(window.scrollY));
      if (y === Math.round(before.y)) {
        return outcome(
          false,
          action.direction === "down"
            ? "already at the bottom of the page"
            : "already at the top of the page",
        );
      }
      return outcome(
        true,
        `scrolled ${action.direction} to ${y} of ${Math.max(0, Math.round(before.max))} px`,
      );
    }
    case "click": {
      const found = await findClickable(page, action.name, action.role);
      if (!found)
        return outcome(false, `no ${action.role ?? "element"} named ${quote(action.name)} on the page`);
      const before = page.url();
      try {
        // The persona has one tab: a link or form meant for a new window opens in this one.
        await found.locator
          .evaluate((el) => el.closest("a[target], area[target], form[target]")?.removeAttribute("target"))
          .catch(() => undefined);
        await found.locator.click({ timeout: ACTION_TIMEOUT_MS });
      } catch (err) {
        return outcome(false, `could not click ${found.what}: ${(err as Error).message.split("\n")[0]}`);
      }
      const { blockedUrl } = await ctx.afterInteraction();
      if (blockedUrl)
        return outcome(
          false,
          `clicked ${found.what}, but refused to go to ${blockedUrl}: not an allowed address`,
        );
      const after = page.url();
      return outcome(
        true,
        after !== before ? `clicked ${found.what}; now at ${after}` : `clicked ${found.what}`,
      );
    }
    case "type": {
      const field = await findField(page, action.name);
      if (!field) return outcome(false, `no field named ${quote(action.name)} on the page`);
      try {
        await field.fill(action.text, { timeout: ACTION_TIMEOUT_MS });
      } catch (err) {
        return outcome(
          false,
          `could not type into field ${quote(action.name)}: ${(err as Error).message.split("\n")[0]}`,
        );
      }
      return outcome(true, `typed ${quote(action.text)} into field ${quote(action.name)}`);
    }
  }
}
