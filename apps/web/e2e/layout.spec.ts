import { readdirSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { expect, type Page, test } from "@playwright/test";
import { type FixtureSite, startFixtureSite } from "@rubricon/agents/testing";
import { signUp } from "./helpers";

const SCREENSHOT_DIR = process.env.E2E_SCREENSHOT_DIR;

let site: FixtureSite;
test.beforeAll(async () => {
  site = await startFixtureSite();
});
test.afterAll(async () => {
  await site?.close();
});

/** Every page route under app/(dashboard) and app/share, as patterns like `/evaluations/[id]/results`. */
function dashboardRoutes(): string[] {
  const appDir = fileURLToPath(new URL("../app", import.meta.url));
  const routes: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const full = join(dir, entry.name);
      if (entry.isDirectory()) {
        if (entry.name !== "api" && !entry.name.startsWith("_")) walk(full);
      } else if (entry.name === "page.tsx") {
        const route = `/${relative(appDir, dir)
          .split(sep)
          .filter((s) => !/^\(.*\)$/.test(s))
          .join("/")}`;
        routes.push(route);
      }
    }
  };
  walk(appDir);
  // The root only redirects; the sign-in pages are measured at 360 px by their own test.
  return routes.filter((r) => r !== "/" && r !== "/sign-in" && r !== "/sign-up").sort();
}

const routePattern = (route: string) => new RegExp(`^${route.replace(/\[[^\]]+\]/g, "[^/]+")}$`);

/** Everything the dashboard shows, with real ids, so each page renders its full content rather than a 404. */
async function seedPages(page: Page, baseURL: string): Promise<string[]> {
  const headers = { Origin: baseURL, "Content-Type": "application/json" };
  const post = async (path: string, data: unknown, status = 201) => {
    const res = await page.request.post(`/api/v1${path}`, { headers, data });
    expect(res.status(), `${path}: ${await res.text()}`).toBe(status);
    return res.json();
  };
  const get = async (path: string) => {
    const res = await page.request.get(`/api/v1${path}`);
    expect(res.status(), path).toBe(200);
    return res.json();
  };

  const whoami = await get("/auth/whoami");
  // Pro, so the webhook endpoint can be made.
  await post(`/teams/${whoami.teamId}/plan`, { plan: "pro" }, 200);
  // A long name and a long URL: what makes pages widen when nothing wraps.
  const evaluation = await post("/evaluations", {
    name: "Checkout redesign with an unusually long name that must wrap on a phone instead of widening the page",
    type: "SSE",
    designUrls: [
      { url: `${site.urls.clean}?utm_source=a-very-long-query-string-that-never-breaks-by-itself` },
    ],
  });
  const batch = await post(
    `/evaluations/${evaluation.id}/run-autousers`,
    { autouserIds: ["auto_power_user"] },
    202,
  );
  const runId = batch.data.runs[0].id as string;
  // A live run keeps its stream open; the pages are measured once it has settled.
  await expect
    .poll(async () => (await get(`/evaluations/${evaluation.id}/autouser-runs/${runId}`)).status, {
      timeout: 90_000,
    })
    .toBe("completed");
  const templates = await get("/templates?limit=1");
  const autousers = await get("/autousers?limit=1");
  const conversation = await post("/conversations", { title: "Layout check" });
  const endpoint = await post("/webhooks", {
    url: "https://hooks.example.com/rubricon/a-long-path/that-goes-on-and-on",
    enabled_events: ["*"],
  });

  return [
    "/evaluations",
    "/evaluations/new",
    `/evaluations/${evaluation.id}`,
    `/evaluations/${evaluation.id}/rate`,
    `/evaluations/${evaluation.id}/results`,
    `/evaluations/${evaluation.id}/review`,
    `/evaluations/${evaluation.id}/preview`,
    `/evaluations/${evaluation.id}/edit`,
    `/evaluations/${evaluation.id}/autouser-runs/${runId}`,
    "/autousers",
    "/autousers/new",
    `/autousers/${autousers.data[0].id}`,
    `/autousers/${autousers.data[0].id}/calibration`,
    "/templates",
    "/templates/new",
    `/templates/${templates.data[0].id}`,
    "/builder",
    `/builder/${conversation.id}`,
    "/settings",
    "/members",
    "/access-requests",
    "/api-keys",
    "/settings/model-keys",
    "/connected-apps",
    "/plan",
    "/webhooks",
    `/webhooks/${endpoint.id}`,
    "/events",
    "/pair",
    "/invites/not-a-real-invite",
    "/oauth/consent/not-a-real-interaction",
    `/share/${evaluation.shareToken}`,
    "/docs",
    "/docs/errors",
  ];
}

/**
 * Pairs of text runs drawn on top of each other in page headers and cards (tables, charts, notes), and text that
 * touches its card's edge (a table that lost its cell padding). Each text node is measured line by line (its client
 * rects), so a wrapped sentence and the word after it are not mistaken for an overlap; what a scroller hides is left
 * out, as the reader cannot see it either.
 */
async function overlappingText(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    interface Box {
      left: number;
      right: number;
      top: number;
      bottom: number;
    }
    interface Run {
      text: string;
      rects: Box[];
    }
    const runs: Run[] = [];
    const hidden = (el: Element | null): boolean => {
      // A closed <details> keeps its content laid out where the browser can measure it, unseen.
      if (el?.closest("details:not([open]) > :not(summary)")) return true;
      if (el && !el.checkVisibility({ visibilityProperty: true })) return true;
      for (let a = el; a; a = a.parentElement) {
        const style = getComputedStyle(a);
        if (style.visibility === "hidden" || style.display === "none") return true;
        if (a.classList.contains("visually-hidden")) return true;
      }
      return false;
    };
    // Cards nest, so a text node is measured once however many scopes hold it.
    const measured = new Set<Node>();
    /** The part of a box its scrollers and clipping ancestors leave visible; null when none is. */
    const visible = (box: Box, el: Element | null): Box | null => {
      // Copied field by field: a DOMRect's sides are getters, which spreading would drop.
      let v = { left: box.left, right: box.right, top: box.top, bottom: box.bottom };
      for (let a = el; a && a !== document.body; a = a.parentElement) {
        if (getComputedStyle(a).overflowX === "visible") continue;
        const clip = a.getBoundingClientRect();
        v = {
          left: Math.max(v.left, clip.left),
          right: Math.min(v.right, clip.right),
          top: Math.max(v.top, clip.top),
          bottom: Math.min(v.bottom, clip.bottom),
        };
        if (v.right - v.left <= 1 || v.bottom - v.top <= 1) return null;
      }
      return v;
    };
    const found: string[] = [];
    for (const scope of Array.from(document.querySelectorAll(".page-header, .card"))) {
      const walker = document.createTreeWalker(scope, NodeFilter.SHOW_TEXT);
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        if (measured.has(node)) continue;
        measured.add(node);
        const text = node.textContent?.trim() ?? "";
        if (!text || node.parentElement?.closest("svg, dialog, option, select") || hidden(node.parentElement))
          continue;
        const range = document.createRange();
        range.selectNodeContents(node);
        const rects = Array.from(range.getClientRects())
          .filter((r) => r.width > 1 && r.height > 1)
          .map((r) => visible(r, node.parentElement))
          .filter((r): r is Box => r !== null);
        if (!rects.length) continue;
        runs.push({ text: text.slice(0, 40), rects });
        // Only the left edge: on the right a wide table is cut by its scroller on purpose.
        const card = node.parentElement?.closest(".card");
        if (card) {
          const edge = card.getBoundingClientRect();
          if (rects.some((r) => r.left - edge.left < 4))
            found.push(`“${text.slice(0, 40)}” touches the edge of its card`);
        }
      }
    }
    const seen = new Set<string>();
    for (let i = 0; i < runs.length; i++) {
      for (let j = i + 1; j < runs.length; j++) {
        const hit = runs[i]!.rects.some((a) =>
          runs[j]!.rects.some(
            (b) =>
              Math.min(a.right, b.right) - Math.max(a.left, b.left) > 2 &&
              Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top) > 2,
          ),
        );
        const key = `“${runs[i]!.text}” × “${runs[j]!.text}”`;
        if (hit && !seen.has(key)) {
          seen.add(key);
          found.push(key);
        }
      }
    }
    return found.slice(0, 5);
  });
}

async function horizontalOverflow(
  page: Page,
): Promise<{ scrollWidth: number; clientWidth: number; culprits: string }> {
  return page.evaluate(() => {
    const root = document.scrollingElement ?? document.documentElement;
    const clientWidth = root.clientWidth;
    // The outermost elements that reach past the window's right edge, named so a failure says where to look.
    const culprits: string[] = [];
    const past = (el: Element) => el.getBoundingClientRect().right > clientWidth + 0.5;
    const clipped = (el: HTMLElement) => {
      for (let a = el.parentElement; a && a !== document.body; a = a.parentElement) {
        if (getComputedStyle(a).overflowX !== "visible" && !past(a)) return true;
      }
      return false;
    };
    for (const el of Array.from(document.body.querySelectorAll<HTMLElement>("*"))) {
      if (!past(el) || clipped(el)) continue;
      if (el.parentElement && past(el.parentElement)) continue;
      const cls =
        typeof el.className === "string" && el.className ? `.${el.className.split(" ").join(".")}` : "";
      culprits.push(`${el.tagName.toLowerCase()}${cls} (${Math.round(el.getBoundingClientRect().right)} px)`);
      if (culprits.length === 5) break;
    }
    return { scrollWidth: root.scrollWidth, clientWidth, culprits: culprits.join(", ") };
  });
}

test("no dashboard page scrolls sideways or overlaps its text on a phone (390 px) or a laptop (1280 px)", async ({
  page,
  baseURL,
}) => {
  test.setTimeout(SCREENSHOT_DIR ? 600_000 : 300_000);
  await signUp(page);
  const paths = await seedPages(page, baseURL!);
  // Every page in the app is visited: a new page must be added to the seeded list or this fails.
  for (const route of dashboardRoutes()) {
    expect(
      paths.some((p) => routePattern(route).test(p)),
      `${route} is not visited by the layout test`,
    ).toBe(true);
  }

  // Screenshots are for a person to look at, so they also cover a wide desktop.
  for (const width of SCREENSHOT_DIR ? [390, 1280, 1920] : [390, 1280]) {
    await page.setViewportSize({ width, height: 900 });
    for (const path of paths) {
      await test.step(`${path} at ${width} px`, async () => {
        // Network idle: with nothing running, no page keeps a request or a stream open, so it settles.
        await page.goto(path, { waitUntil: "networkidle", timeout: 20_000 });
        await expect(page.locator("h1, [role=alert]").first()).toBeVisible();
        await expect(page.getByText(/^Loading\b.*…$/)).toHaveCount(0);
        const { scrollWidth, clientWidth, culprits } = await horizontalOverflow(page);
        expect
          .soft(scrollWidth, `${path} is ${scrollWidth} px wide in a ${clientWidth} px window: ${culprits}`)
          .toBeLessThanOrEqual(clientWidth);
        expect.soft(await overlappingText(page), `${path} at ${width} px draws text over text`).toEqual([]);
        if (SCREENSHOT_DIR) {
          const name = path.replace(/[^a-z0-9]+/gi, "_").replace(/^_|_$/g, "") || "root";
          await page.screenshot({ path: `${SCREENSHOT_DIR}/${width}-${name}.png`, fullPage: true });
        }
      });
    }
  }
});

test("the sign-in and sign-up pages fit a 360 px phone", async ({ page }) => {
  await page.setViewportSize({ width: 360, height: 740 });
  for (const path of ["/sign-in", "/sign-up"]) {
    await page.goto(path);
    await expect(page.locator("h1").first()).toBeVisible();
    const { scrollWidth, clientWidth, culprits } = await horizontalOverflow(page);
    expect(scrollWidth, `${path}: ${culprits}`).toBeLessThanOrEqual(clientWidth);
  }
});

test("on a phone the menu folds behind a button that opens with the keyboard and reaches Sign out", async ({
  page,
}) => {
  await page.setViewportSize({ width: 390, height: 844 });
  await signUp(page);
  const menu = page.getByRole("button", { name: "Menu" });
  const signOut = page.getByRole("button", { name: "Sign out" });
  await expect(menu).toHaveAttribute("aria-expanded", "false");
  await expect(signOut).toBeHidden();
  await expect(page.getByRole("navigation", { name: "Main" })).toBeHidden();

  await menu.focus();
  await page.keyboard.press("Enter");
  await expect(menu).toHaveAttribute("aria-expanded", "true");
  await expect(
    page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Settings" }),
  ).toBeVisible();
  // Escape closes it and gives focus back to the button.
  await page.keyboard.press("Escape");
  await expect(menu).toHaveAttribute("aria-expanded", "false");
  await expect(menu).toBeFocused();

  // A followed link closes the menu; Settings opens its own menu.
  await menu.click();
  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Settings" }).click();
  await expect(page).toHaveURL(/\/settings$/);
  await expect(page.getByRole("heading", { name: "Settings", exact: true })).toBeVisible();
  await expect(menu).toHaveAttribute("aria-expanded", "false");
  await expect(
    page.getByRole("navigation", { name: "Settings" }).getByRole("link", { name: "API keys" }),
  ).toBeVisible();

  await menu.click();
  await expect(signOut).toBeVisible();
  await signOut.click();
  await expect(page).toHaveURL(/\/sign-in/);
});

test("on a laptop the product sits in the top bar and Sign out is on screen", async ({ page }) => {
  for (const width of [1280, 1366, 1920]) {
    await page.setViewportSize({ width, height: 800 });
    if (width === 1280) await signUp(page);
    else await page.goto("/evaluations");
    const main = page.getByRole("navigation", { name: "Main" });
    await expect(main.getByRole("link")).toHaveText([
      "Evaluations",
      "Autousers",
      "Templates",
      "Builder",
      "Settings",
      "API reference",
    ]);
    await expect(page.getByRole("button", { name: "Menu" })).toBeHidden();
    const box = await page.getByRole("button", { name: "Sign out" }).boundingBox();
    expect(box, "Sign out is laid out").not.toBeNull();
    expect(box!.x + box!.width).toBeLessThanOrEqual(width);
    expect(box!.y + box!.height).toBeLessThanOrEqual(56);
  }
});
