import { expect, type Locator, type Page, test } from "@playwright/test";
import { type FixtureSite, startFixtureSite } from "@rubricon/agents/testing";
import { confirmDialog, signUp } from "./helpers";

const SCREENSHOT_DIR = process.env.E2E_SCREENSHOT_DIR ?? "/tmp";

let site: FixtureSite;
test.beforeAll(async () => {
  site = await startFixtureSite();
});
test.afterAll(async () => {
  await site?.close();
});

async function createEvaluation(page: Page, baseURL: string, name: string, url: string): Promise<string> {
  const res = await page.request.post("/api/v1/evaluations", {
    headers: { Origin: baseURL, "Content-Type": "application/json" },
    data: { name, type: "SSE", designUrls: [{ url }] },
  });
  expect(res.status()).toBe(201);
  return ((await res.json()) as { id: string }).id;
}

async function startRun(page: Page, persona: RegExp) {
  const panel = page.getByRole("region", { name: "Autouser runs" });
  await panel.getByRole("button", { name: "Run autousers" }).click();
  return submitRun(panel, persona);
}

async function submitRun(panel: Locator, persona: RegExp) {
  const form = panel.getByRole("form", { name: "Run autousers" });
  await form.getByRole("checkbox", { name: persona }).check();
  // No model key and no platform model: the heuristic judge rates for free, and the estimate says so.
  await expect(form.getByTestId("run-estimate")).toHaveText(/^1 autouser rating planned · free/);
  await form.getByRole("button", { name: "Start runs" }).click();
  await expect(form).toHaveCount(0);
  return panel;
}

test("run a persona on a loopback page with the heuristic judge, watch it complete live, read its turns and its rating beside the humans'; stop a run", async ({
  page,
  baseURL,
}) => {
  test.setTimeout(180_000);
  await signUp(page);

  let evaluationId = "";
  await test.step("start a heuristic run from the evaluation's page", async () => {
    evaluationId = await createEvaluation(page, baseURL!, "Tea shop", site.urls.clean);
    await page.goto(`/evaluations/${evaluationId}`);
    const panel = page.getByRole("region", { name: "Autouser runs" });
    await expect(panel.getByText("No autouser has run on this evaluation yet.")).toBeVisible();
    await startRun(page, /^Power user/);
  });

  await test.step("the stream carries the run to completed, with its bar full", async () => {
    const panel = page.getByRole("region", { name: "Autouser runs" });
    const run = panel.getByTestId("autouser-run");
    await expect(run).toHaveCount(1);
    await expect(run.getByTestId("run-status")).toHaveText("completed", { timeout: 90_000 });
    await expect(panel.getByTestId("overall-progress")).toContainText("1 of 1 ratings");
    await expect(panel.getByRole("progressbar", { name: "Overall autouser progress" })).toHaveAttribute(
      "aria-valuenow",
      "100",
    );
    await expect(panel.getByTestId("count-completed")).toHaveText(/completed 1/i);
    await expect(panel.getByTestId("stream-state")).toHaveText("Up to date");
    await expect(page.getByTestId("evaluation-status")).toHaveText("Running");
    await page.screenshot({ path: `${SCREENSHOT_DIR}/autouser-runs-panel.png`, fullPage: true });
  });

  await test.step("a run started elsewhere (over the API) joins the panel live, without a reload", async () => {
    const res = await page.request.post(`/api/v1/evaluations/${evaluationId}/run-autousers`, {
      headers: { Origin: baseURL!, "Content-Type": "application/json" },
      data: { autouserIds: ["auto_power_user"] },
    });
    expect(res.status()).toBe(202);
    const panel = page.getByRole("region", { name: "Autouser runs" });
    await expect(panel.getByTestId("autouser-run")).toHaveCount(2, { timeout: 30_000 });
    await expect(panel.getByTestId("count-completed")).toHaveText(/completed 2/i, { timeout: 90_000 });
    await expect(panel.getByTestId("overall-progress")).toContainText("2 of 2 ratings");
    // The same persona ran twice: the rows say which run is which.
    await expect(
      panel.getByRole("link", { name: "Power user · agent 1 · run 1", exact: true }),
    ).toBeVisible();
    await expect(
      panel.getByRole("link", { name: "Power user · agent 1 · run 2", exact: true }),
    ).toBeVisible();
  });

  await test.step("the run's page lists its turns and figures", async () => {
    await page
      .getByRole("link", { name: /Power user · agent 1/ })
      .last()
      .click();
    await expect(page).toHaveURL(/\/autouser-runs\/arun_/);
    await expect(page.getByRole("heading", { name: "Autouser run", exact: true })).toBeVisible();
    // The breadcrumb names the evaluation; the title line names the persona and when it started.
    await expect(
      page.getByRole("navigation", { name: "Breadcrumb" }).getByRole("link", { name: "Tea shop" }),
    ).toBeVisible();
    await expect(page.getByTestId("run-label")).toHaveText(/^Power user · agent 1 · started /);
    await expect(page.getByTestId("run-status")).toHaveText("completed");
    await expect(page.getByTestId("run-ratings")).toHaveText("1 of 1");
    expect(await page.getByTestId("run-turn").count()).toBeGreaterThanOrEqual(2);
    await expect(page.getByRole("table", { name: "Turns" })).toContainText(site.urls.clean);
    // The screenshot is served from file storage through its signed link, and the browser shows it.
    const shot = page.getByTestId("run-artifacts").getByRole("img", { name: "Screenshot of turn 1" });
    await expect(shot).toBeVisible();
    await expect
      .poll(() => shot.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth))
      .toBeGreaterThan(100);
  });

  await test.step("results show the autouser's rating beside the humans'", async () => {
    await page.goto(`/evaluations/${evaluationId}/results`);
    await expect(page.getByTestId("tile-autousers")).toContainText("2");
    const table = page.getByRole("table", { name: "Humans and autousers" });
    const row = table.getByTestId("humans-vs-autousers-row").first();
    await expect(row.getByTestId("autouser-mean")).toContainText("n=2");
    await expect(row.getByTestId("human-mean")).toContainText("n=0");
    await expect(row.getByTestId("autouser-mean")).toHaveText(/^\d+\.\d\d n=2$/);
  });

  await test.step("a plan past the month's autouser ratings is refused plainly; a run on a page that never loads is stopped from its row", async () => {
    const id = await createEvaluation(page, baseURL!, "Never loads", site.urls.neverAnswers);
    await page.goto(`/evaluations/${id}`);
    const runs = page.getByRole("region", { name: "Autouser runs" });
    await runs.getByRole("button", { name: "Run autousers" }).click();
    const form = runs.getByRole("form", { name: "Run autousers" });
    await form.getByRole("checkbox", { name: /^Power user/ }).check();
    // The Free plan's 50 autouser ratings a month, two of them spent above.
    await form.getByLabel("Agents per autouser").fill("50");
    await expect(form.getByTestId("run-estimate")).toHaveText(/^50 autouser ratings planned · free/);
    await form.getByRole("button", { name: "Start runs" }).click();
    await expect(form.getByRole("alert")).toContainText("See Plan and usage");
    await form.getByLabel("Agents per autouser").fill("1");
    const panel = await submitRun(runs, /^Power user/);
    const run = panel.getByTestId("autouser-run");
    await expect(run.getByTestId("run-status")).toHaveText(/queued|running/);
    await run.getByRole("button", { name: /^Stop Power user/ }).click();
    await expect(run.getByTestId("run-status")).toHaveText("cancelled", { timeout: 30_000 });
    await expect(panel.getByTestId("count-cancelled")).toHaveText(/cancelled 1/i);
    await expect(run.getByRole("button", { name: /^Stop/ })).toHaveCount(0);
  });
});

test("calibrate a team autouser against human ratings, read alpha and bias, and freeze its rubric", async ({
  page,
  baseURL,
}) => {
  test.setTimeout(180_000);
  await signUp(page);
  const headers = { Origin: baseURL!, "Content-Type": "application/json" };
  const post = async (path: string, data: unknown, status: number) => {
    const res = await page.request.post(`/api/v1${path}`, { headers, data });
    expect(res.status(), await res.text()).toBe(status);
    return (await res.json()) as Record<string, unknown>;
  };

  let autouserId = "";
  let rubricId = "";
  let evaluationId = "";
  await test.step("a team persona with a rubric, and an evaluation a human rated", async () => {
    const whoami = (await (await page.request.get("/api/v1/auth/whoami")).json()) as { teamId: string };
    const autouser = await post(
      "/autousers",
      { teamId: whoami.teamId, name: "Careful reader", role: "Reads every word", status: "published" },
      201,
    );
    autouserId = autouser.id as string;
    rubricId = (
      await post(`/autousers/${autouserId}/rubrics`, { dimensionId: "overall", guidance: "Be strict." }, 201)
    ).id as string;
    evaluationId = await createEvaluation(page, baseURL!, "Humans rated", site.urls.clean);
    const patched = await page.request.patch(`/api/v1/evaluations/${evaluationId}`, {
      headers,
      data: { status: "Running" },
    });
    expect(patched.status()).toBe(200);
    const comparisons = (await (
      await page.request.get(`/api/v1/evaluations/${evaluationId}/comparisons`)
    ).json()) as {
      data: { id: string }[];
    };
    await post(
      `/evaluations/${evaluationId}/ratings`,
      { comparisonId: comparisons.data[0]!.id, dimensionRatings: { overall: 6 } },
      201,
    );
  });

  await test.step("start a calibration from the autouser's page and follow it to its figures", async () => {
    await page.goto(`/autousers/${autouserId}`);
    await page.getByRole("link", { name: "Calibration" }).click();
    await expect(page.getByRole("heading", { name: "Calibration", exact: true })).toBeVisible();
    await expect(page.getByText("This autouser has not been calibrated yet.")).toBeVisible();
    const form = page.getByRole("form", { name: "Start a calibration" });
    await form.getByLabel("Rubric").selectOption(rubricId);
    await form.getByLabel("Evaluation rated by humans").selectOption(evaluationId);
    await form.getByLabel("Sample size").fill("10");
    await form.getByRole("button", { name: "Start calibration" }).click();
    await expect(page.getByTestId("calibration-status")).toHaveText("completed", { timeout: 90_000 });
    await expect(page.getByText("1 of 1 comparisons rated")).toBeVisible();
    await expect(page.getByTestId("autouser-calibration-status")).toHaveText("Calibrated");
    await expect(page.getByTestId("calibration-alpha")).toHaveText(/^(-?\d\.\d{3}|\w.+)$/);
    await expect(page.getByRole("table", { name: "Bias per template" })).toContainText("overall");
    await page.screenshot({ path: `${SCREENSHOT_DIR}/autouser-calibration.png`, fullPage: true });
  });

  await test.step("optimising the weights needs more rated comparisons than one", async () => {
    await page.getByRole("button", { name: "Optimise weights" }).click();
    await expect(page.getByRole("alert").filter({ hasText: "at least 6 are needed" })).toBeVisible();
    await expect(page.getByTestId("calibration-optimisation")).toHaveCount(0);
  });

  await test.step("freeze the calibrated rubric", async () => {
    await page.getByRole("button", { name: "Freeze rubric" }).click();
    await confirmDialog(page, "Freeze");
    await expect(page.getByRole("status").filter({ hasText: "is frozen and active" })).toHaveText(
      "Rubric v1 is frozen and active.",
    );
    const rubric = (await (
      await page.request.get(`/api/v1/autousers/${autouserId}/rubrics/${rubricId}`)
    ).json()) as {
      isFrozen: boolean;
    };
    expect(rubric.isFrozen).toBe(true);
    await expect(page.getByTestId("autouser-calibration-status")).toHaveText("Frozen");
  });
});

test("optimise a calibrated autouser's weights and read alpha before and after on the held-out comparisons", async ({
  page,
  baseURL,
}) => {
  test.setTimeout(240_000);
  await signUp(page);
  const headers = { Origin: baseURL!, "Content-Type": "application/json" };
  const post = async (path: string, data: unknown, status: number) => {
    const res = await page.request.post(`/api/v1${path}`, { headers, data });
    expect(res.status(), await res.text()).toBe(status);
    return (await res.json()) as Record<string, unknown>;
  };
  const whoami = (await (await page.request.get("/api/v1/auth/whoami")).json()) as { teamId: string };
  const autouserId = (
    await post(
      "/autousers",
      { teamId: whoami.teamId, name: "Weighed reader", role: "Reads every word", status: "published" },
      201,
    )
  ).id as string;
  const rubricId = (await post(`/autousers/${autouserId}/rubrics`, { dimensionId: "overall" }, 201))
    .id as string;
  // Six comparisons, clean and defective pages in turn, which the human rates good and poor.
  const pages = Array.from({ length: 6 }, (_, i) => ({
    url: `${i % 2 === 0 ? site.urls.clean : site.urls.defects}?copy=${i}`,
    good: i % 2 === 0,
  }));
  const evaluation = await post(
    "/evaluations",
    { name: "Six rated", type: "SSE", status: "Running", designUrls: pages.map((p) => ({ url: p.url })) },
    201,
  );
  const comparisons = (await (
    await page.request.get(`/api/v1/evaluations/${evaluation.id}/comparisons?limit=10`)
  ).json()) as { data: { id: string; position: number }[] };
  expect(comparisons.data).toHaveLength(6);
  const inOrder = [...comparisons.data].sort((a, b) => a.position - b.position);
  for (const [i, c] of inOrder.entries()) {
    const good = pages[i]!.good;
    await post(
      `/evaluations/${evaluation.id}/ratings`,
      { comparisonId: c.id, dimensionRatings: { overall: good ? 6 : 2 } },
      201,
    );
  }
  await post(
    `/autousers/${autouserId}/calibration`,
    { rubricId, evaluationId: evaluation.id, sampleSize: 10 },
    202,
  );

  await page.goto(`/autousers/${autouserId}/calibration`);
  await expect(page.getByTestId("calibration-status")).toHaveText("completed", { timeout: 150_000 });
  await page.getByRole("button", { name: "Optimise weights" }).click();
  const result = page.getByTestId("calibration-optimisation");
  await expect(result).toContainText("Fitted on 4 comparisons, measured on 2 held out.");
  await expect(result).toContainText("Proposed as rubric v2, not frozen");
  const table = result.getByRole("table", { name: "Alpha before and after" });
  await expect(table.getByRole("rowheader")).toHaveText(["Before", "After"]);
  await expect(page.getByTestId("optimised-alpha-before")).toHaveText(/^(-?\d\.\d{3}|—)$/);
  await page.screenshot({ path: `${SCREENSHOT_DIR}/autouser-calibration-optimised.png`, fullPage: true });

  // The proposal is a new unfrozen version; the calibrated one is untouched and nothing became active.
  const rubrics = (await (await page.request.get(`/api/v1/autousers/${autouserId}/rubrics`)).json()) as {
    data: { id: string; version: number; isFrozen: boolean }[];
  };
  expect(rubrics.data.map((r) => [r.version, r.isFrozen]).sort()).toEqual([
    [1, false],
    [2, false],
  ]);
  const autouser = (await (await page.request.get(`/api/v1/autousers/${autouserId}`)).json()) as {
    activeRubricId: string | null;
  };
  expect(autouser.activeRubricId).toBeNull();
});
