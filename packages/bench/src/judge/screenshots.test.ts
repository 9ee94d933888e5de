import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import {
  distinctScores,
  type SavedCapture,
  type ShotScore,
  screenshotFigures,
  shotPages,
  shotPairs,
  startShotSite,
} from "./screenshots";

const saved = (shotFile: string | null) => ({ shotFile }) as SavedCapture;

describe("the screenshot-only section", () => {
  const dir = mkdtempSync(join(tmpdir(), "shots-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("takes the intact pages' and the visual twins' screenshots, and tells held-out pages apart", () => {
    const shots = shotPages({
      "startbootstrap-x/index.html|intact|desktop:1280x800": saved("aa.png"),
      "startbootstrap-x/index.html|no-styles|desktop:1280x800": saved("bb.png"),
      // Labels stripped and a page wider than the screen do not show in a first-screen screenshot.
      "startbootstrap-x/index.html|unlabelled|desktop:1280x800": saved("cc.png"),
      "startbootstrap-x/index.html|too-wide|desktop:1280x800": saved("dd.png"),
      "gentelella/login.html|intact|mobile:390x844": saved("ee.png"),
      "gentelella/login.html|overlap|mobile:390x844": saved(null),
    });
    expect(shots.map((s) => [s.page, s.variant, s.corpus, s.device])).toEqual([
      ["gentelella/login.html", "intact", "tuning", "mobile:390x844"],
      ["startbootstrap-x/index.html", "intact", "heldout", "desktop:1280x800"],
      ["startbootstrap-x/index.html", "no-styles", "heldout", "desktop:1280x800"],
    ]);
  });

  it("pairs each twin's screenshot with its intact page's on the same device and counts distinct scores", () => {
    const shot = (page: string, variant: string, device = "desktop:1280x800") => ({
      key: `${page}|${variant}|${device}`,
      page,
      corpus: "tuning" as const,
      variant: variant as "intact",
      device,
      file: "a.png",
    });
    const scores: ShotScore[] = [
      { shot: shot("a", "intact"), persona: "p", score: 5 },
      { shot: shot("a", "no-styles"), persona: "p", score: 3 },
      { shot: shot("b", "intact"), persona: "p", score: 4 },
      { shot: shot("b", "welcome-only"), persona: "p", score: 4 },
      { shot: shot("b", "welcome-only", "mobile:390x844"), persona: "p", score: 2 },
      { shot: shot("a", "intact"), persona: "sr", score: 1 },
      { shot: shot("a", "no-styles"), persona: "sr", score: 1 },
    ];
    const pairs = shotPairs(scores);
    expect(pairs.map((p) => [p.page, p.persona, p.degradation, p.intact, p.degraded])).toEqual([
      ["a", "p", "no-styles", 5, 3],
      ["b", "p", "welcome-only", 4, 4],
      ["a", "sr", "no-styles", 1, 1],
    ]);
    expect(distinctScores(scores, "p")).toEqual({ intact: 2, all: 4 });
    expect(distinctScores(scores, "sr")).toEqual({ intact: 1, all: 1 });
    const figures = screenshotFigures(scores, [
      { id: "p", sees: true },
      { id: "sr", sees: false },
    ]);
    const byName = Object.fromEntries(figures.map((f) => [f.name, f]));
    expect(byName["judge.screenshots.tuning.distinct.intact.p"]).toMatchObject({ value: 2, pass: true });
    // One value for a reader who cannot see the picture is no failure: there is nothing to hear in it.
    expect(byName["judge.screenshots.tuning.distinct.intact.sr"]).toMatchObject({ value: 1, pass: null });
    expect(byName["judge.screenshots.tuning.accuracy.all.p"]?.value).toBe(0.75);
    expect(byName["judge.screenshots.tuning.accuracy.no-styles.sr"]?.value).toBe(0.5);
  });

  it("leaves out a twin whose screenshot is its page's, pixel for pixel", () => {
    const shot = (variant: string, pixels: string) => ({
      key: `a|${variant}|desktop:1280x800`,
      page: "a",
      corpus: "tuning" as const,
      variant: variant as "intact",
      device: "desktop:1280x800",
      file: `${variant}.png`,
      pixels,
    });
    const pairs = shotPairs([
      { shot: shot("intact", "h1"), persona: "p", score: 5 },
      { shot: shot("broken-images", "h1"), persona: "p", score: 5 },
      { shot: shot("no-styles", "h2"), persona: "p", score: 2 },
    ]);
    expect(pairs.map((p) => p.degradation)).toEqual(["no-styles"]);
  });

  it("serves a screenshot as a page that is only that image", async () => {
    mkdirSync(dir, { recursive: true });
    const png = Buffer.from("89504e470d0a1a0a", "hex");
    writeFileSync(join(dir, "abc123.png"), png);
    const site = await startShotSite(dir);
    try {
      const page = await fetch(`${site.url}/page/abc123.png`);
      expect(page.headers.get("content-type")).toContain("text/html");
      const html = await page.text();
      expect(html).toContain('<img src="/img/abc123.png"');
      expect(html).not.toContain("alt=");
      const img = await fetch(`${site.url}/img/abc123.png`);
      expect(img.headers.get("content-type")).toBe("image/png");
      expect(Buffer.from(await img.arrayBuffer())).toEqual(png);
      expect((await fetch(`${site.url}/img/missing0.png`)).status).toBe(404);
      expect((await fetch(`${site.url}/page/..%2Fsecret.png`)).status).toBe(404);
    } finally {
      await site.close();
    }
  });
});
