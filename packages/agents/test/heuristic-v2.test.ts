import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type AgentBrowser,
  appealPosition,
  collapsedSeverity,
  componentScoresV2,
  contrastOf,
  createHeuristicJudge,
  GLYPH_SMALL,
  ghostSeverity,
  HEURISTIC_MODEL,
  isPicture,
  launchAgentBrowser,
  namesSeverity,
  obscuredSeverity,
  overflowSeverity,
  type PageCapture,
  type Persona,
  type PersonaDevice,
  PICTURE_SPAN,
  QUALITY_FLOOR,
  qualityV2,
  readerOf,
  squeezedSeverity,
  sseScoreV2,
  visualAppeal,
  visualSignals,
} from "../src";
import { judgeTemplate } from "../src/testing";

/**
 * An intact, realistic page (a shop's landing page: navigation, hero image, product cards, a sign-up form,
 * icon buttons) and seven twins that any visitor would call worse. The twins are made the way the judge
 * bench makes them from published templates, so the test checks the judge on the kind of change it meets.
 */
const PHOTO = (hue: number, label: string) =>
  `<svg xmlns="http://www.w3.org/2000/svg" width="480" height="300" viewBox="0 0 480 300">` +
  `<defs><linearGradient id="g" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="hsl(${hue},70%,55%)"/>` +
  `<stop offset="1" stop-color="hsl(${(hue + 60) % 360},70%,40%)"/></linearGradient></defs>` +
  `<rect width="480" height="300" fill="url(#g)"/><circle cx="360" cy="90" r="50" fill="hsl(${(hue + 180) % 360},80%,70%)"/>` +
  `<path d="M0 240 L120 160 L220 230 L330 140 L480 250 L480 300 L0 300Z" fill="hsl(${(hue + 30) % 360},45%,25%)"/>` +
  `<text x="24" y="48" font-family="sans-serif" font-size="28" fill="#fff">${label}</text></svg>`;

const INTACT = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Leaf &amp; Kettle — loose-leaf tea</title>
<link rel="stylesheet" href="/site.css">
</head>
<body>
<header class="top"><a class="brand" href="/">Leaf &amp; Kettle</a>
  <nav aria-label="Main"><a href="/shop">Shop</a><a href="/subscriptions">Subscriptions</a><a href="/journal">Journal</a><a href="/help">Help</a></nav>
  <button class="icon" aria-label="Search"><svg width="20" height="20" aria-hidden="true"><circle cx="8" cy="8" r="6" stroke="#fff" stroke-width="2" fill="none"/></svg></button>
  <button class="icon" aria-label="Basket, 2 items"><svg width="20" height="20" aria-hidden="true"><rect x="3" y="6" width="14" height="11" fill="#fff"/></svg></button>
</header>
<main>
  <section class="hero">
    <div><h1>Loose-leaf tea, delivered fresh every month</h1>
    <p>We buy directly from twelve small gardens in Darjeeling, Yunnan and Shizuoka, pack each order by hand and send it within two days of roasting, so every cup tastes the way the grower meant it to.</p>
    <a class="cta" href="/subscriptions">Start a subscription</a></div>
    <img src="/img/hero.svg" width="480" height="300" alt="Tea terraces on a misty hillside at sunrise">
  </section>
  <h2>This month's teas</h2>
  <ul class="cards">
    <li><img src="/img/sencha.svg" width="480" height="300" alt="A bowl of green sencha leaves"><h3>Spring sencha</h3><p>Grassy, sweet and bright. Steep for one minute at 70 °C.</p><p class="price">£12.50</p><button>Add to basket</button></li>
    <li><img src="/img/oolong.svg" width="480" height="300" alt="Rolled oolong pearls in a glass jar"><h3>Milk oolong</h3><p>Creamy and floral. Steep three times, each a little longer.</p><p class="price">£14.00</p><button>Add to basket</button></li>
    <li><img src="/img/assam.svg" width="480" height="300" alt="Dark assam leaves beside a cup of tea"><h3>Breakfast assam</h3><p>Malty and strong enough for milk. Steep for four minutes.</p><p class="price">£9.00</p><button>Add to basket</button></li>
  </ul>
  <section class="signup" aria-labelledby="signup-title">
    <h2 id="signup-title">Get a free tasting set</h2>
    <form action="/signup">
      <label for="name">Your name</label><input id="name" name="name" autocomplete="name">
      <label for="email">Email address</label><input id="email" name="email" type="email" autocomplete="email">
      <button type="submit">Send my tasting set</button>
    </form>
  </section>
</main>
<footer><p>Leaf &amp; Kettle, 14 Market Row, Bristol. Questions? <a href="/help">Visit our help pages</a> or call 0117 496 0000.</p></footer>
</body></html>`;

const CSS = `
* { box-sizing: border-box; }
body { margin: 0; font: 17px/1.6 "Helvetica Neue", Arial, sans-serif; color: #222; background: #faf7f2; }
a { color: #1d5c3a; }
.top { display: flex; align-items: center; gap: 24px; padding: 12px 32px; background: #1d5c3a; color: #fff; }
.top a { color: #fff; text-decoration: none; padding: 10px 8px; display: inline-block; }
.brand { font-weight: 700; font-size: 22px; margin-right: auto; }
.icon { width: 44px; height: 44px; border-radius: 22px; border: 0; background: #2e7d52; display: grid; place-items: center; }
main { max-width: 1100px; margin: 0 auto; padding: 32px; }
.hero { display: grid; grid-template-columns: 1fr 1fr; gap: 32px; align-items: center; }
.hero img { width: 100%; height: auto; border-radius: 12px; }
h1 { font-size: 40px; line-height: 1.15; margin: 0 0 16px; color: #14351f; }
.cta { display: inline-block; background: #c0572b; color: #fff; padding: 14px 22px; border-radius: 8px; text-decoration: none; font-weight: 600; }
.cards { list-style: none; padding: 0; display: grid; grid-template-columns: repeat(3, 1fr); gap: 24px; }
.cards li { background: #fff; border-radius: 12px; padding: 16px; box-shadow: 0 2px 8px rgba(0,0,0,.08); }
.cards img { width: 100%; height: auto; border-radius: 8px; }
.price { font-weight: 700; color: #c0572b; }
button { font: inherit; padding: 12px 18px; border-radius: 8px; border: 0; background: #1d5c3a; color: #fff; min-height: 44px; }
.signup { background: #e8efe9; border-radius: 12px; padding: 24px; margin-top: 32px; }
.signup label { display: block; margin-top: 12px; font-weight: 600; }
.signup input { display: block; width: 100%; max-width: 420px; padding: 12px; font: inherit; border: 1px solid #6b7b70; border-radius: 6px; }
.signup button { margin-top: 16px; }
.signup .check { position: relative; margin-top: 12px; }
.signup .check input { position: absolute; opacity: 0; width: 1px; height: 1px; }
.signup .check label { display: inline-block; margin: 0; padding-left: 30px; font-weight: 400; position: relative; }
.signup .check label::before { content: ""; position: absolute; left: 0; top: 3px; width: 18px; height: 18px; border: 2px solid #1d5c3a; border-radius: 4px; background: #fff; }
footer { background: #14351f; color: #e9efe9; padding: 24px 32px; }
footer a { color: #fff; }
@media (max-width: 700px) { .hero, .cards { grid-template-columns: 1fr; } .top { flex-wrap: wrap; padding: 8px 16px; } main { padding: 16px; } h1 { font-size: 30px; } }
`;

const FILM =
  '<section class="film"><video autoplay muted loop playsinline><source src="/media/loop.webm" type="video/webm"></video>' +
  '<div class="film-text"><h2>From the gardens</h2><p>Watch the first flush being picked in Darjeeling this spring, ' +
  "leaf by leaf, on the morning it leaves for your cup.</p></div></section>";
const FILM_CSS =
  ".film { position: relative; min-height: 240px; overflow: hidden; border-radius: 12px; margin-bottom: 24px; } " +
  ".film video { position: absolute; inset: 0; width: 100%; height: 100%; object-fit: cover; } " +
  '.film::before { content: ""; position: absolute; inset: 0; background: rgba(0, 0, 0, 0.3); z-index: 1; } ' +
  ".film-text { position: relative; z-index: 2; color: #fff; padding: 32px; max-width: 640px; } " +
  ".film-text h2 { color: #fff; margin: 0 0 8px; }";
/** A few seconds of dark, moving colour (VP8 in WebM, as Chromium's MediaRecorder writes it). */
const FILM_BYTES = readFileSync(new URL("./fixtures/loop.webm", import.meta.url));

const CUSTOM_CHECK =
  '<div class="check"><input type="checkbox" id="news" name="news"><label for="news">Keep me posted</label></div><button type="submit">';
const inject = (html: string, css: string) => html.replace("</head>", `<style>${css}</style></head>`);
const TWINS: Record<string, (html: string) => string> = {
  intact: (h) => h,
  "broken-images": (h) => h.replace(/src="\/img\//g, 'src="/missing/'),
  "grey-text": (h) => inject(h, "*, *::before, *::after { color: #c9c9c9 !important; }"),
  "tiny-text": (h) => inject(h, "*, *::before, *::after { font-size: 7px !important; }"),
  "no-styles": (h) => h.replace(/<link rel="stylesheet"[^>]*>/g, "").replace(/<style>[\s\S]*?<\/style>/g, ""),
  "too-wide": (h) => inject(h, "body { min-width: 2400px !important; }"),
  "no-labels": (h) =>
    h
      .replace(/\s(alt|aria-label|aria-labelledby)="[^"]*"/g, "")
      .replace(/<label[^>]*>[\s\S]*?<\/label>/g, ""),
  // The form's labels turned into placeholders: still a name while the field is empty, gone once it is typed in.
  // Not one of the degraded twins; a smaller defect than no name at all.
  placeholders: (h) =>
    h
      .replace(
        '<label for="name">Your name</label><input id="name"',
        '<input id="name" placeholder="Your name"',
      )
      .replace(
        '<label for="email">Email address</label><input id="email"',
        '<input id="email" placeholder="Email address"',
      ),
  // Placeholders, and an option shown as a custom checkbox: the input hidden, its label drawing the box (as
  // Bootstrap's custom controls do). A screen reader still meets the hidden input.
  "custom-check": (h) => TWINS.placeholders!(h).replace('<button type="submit">', CUSTOM_CHECK),
  // The same with the checkbox's label gone: the option vanishes from the screen and its input loses its name.
  "custom-check-stripped": (h) =>
    TWINS.placeholders!(h).replace(
      '<button type="submit">',
      CUSTOM_CHECK.replace(/<label[^>]*>[\s\S]*?<\/label>/, ""),
    ),
  // Body copy in a template's mid grey (#999 on white, 2.8:1): it fails WCAG's 3:1 but most readers still read
  // it. Not one of the degraded twins; a smaller defect than text faint to everyone (grey-text, 1.6:1).
  "mid-grey": (h) => inject(h, "p, li, h3 { color: #999 !important; } body { background: #fff !important; }"),
  // One name lost: the hero image's alt text. Not one of the degraded twins; a much smaller defect.
  "one-alt-missing": (h) => h.replace(' alt="Tea terraces on a misty hillside at sunrise"', ""),
  // Content kept in the flow but invisible, as when an animation script never runs: holes in the layout.
  "half-hidden": (h) => inject(h, "body *:nth-child(2n) { visibility: hidden !important; }"),
  // Blocks stacked on each other at the top left, as the judge bench's "overlap" twin makes them: controls end
  // up under other content, where neither a finger, a pointer nor the visible focus can reach them.
  stacked: (h) =>
    inject(
      h,
      "body > *, body > * > *, body > * > * > * { position: absolute !important; top: 0 !important; left: 0 !important; margin: 0 !important; }",
    ),
  // The stacked twin mid-transition, as a carousel's two slides are while one slides over the other: a finite
  // animation on every block (opacity 0.99 to 1, so nothing moves), and the same animation endless.
  "stacked-moving": (h) =>
    inject(
      TWINS.stacked!(h),
      "@keyframes settle { from { opacity: 0.99 } to { opacity: 1 } } body > * { animation: settle 600s linear 1; }",
    ),
  "stacked-endless": (h) =>
    inject(
      TWINS.stacked!(h),
      "@keyframes settle { from { opacity: 0.99 } to { opacity: 1 } } body > * { animation: settle 600s linear infinite; }",
    ),
  // The page's blocks shrunk to a strip on the left, as a wrapper that lost its width leaves them: on a phone the
  // text wraps a few words a line beside an empty half screen; on a desktop it reads as a narrow column.
  squeezed: (h) =>
    inject(h, "body > * { width: 42% !important; margin-left: 0 !important; margin-right: 0 !important; }"),
  empty: (h) =>
    h.replace(/<body>[\s\S]*<\/body>/, '<body><p>Welcome</p><img src="/missing/logo.png"></body>'),
  // Only the header and its navigation, as an app whose view failed to render still draws its menu. Not one of
  // the bench's twins.
  "nav-only": (h) =>
    inject(
      h.replace(
        /<main>[\s\S]*<\/footer>/,
        `<aside class="menu"><nav aria-label="Shop">${["Green", "Black", "White", "Oolong", "Herbal", "Matcha", "Gifts", "Teaware", "Journal", "Recipes", "Stockists", "Contact"].map((n) => `<a href="/${n.toLowerCase()}">${n} teas and more</a>`).join("")}</nav></aside>`,
      ),
      ".menu { position: fixed; top: 68px; bottom: 0; left: 0; width: 320px; background: #14351f; } " +
        ".menu a { display: block; color: #fff; padding: 10px 24px; }",
    ),
  // A menu collapsed the way current templates collapse one (a grid row of 0fr around a box that hides its
  // overflow): its links keep boxes, laid over the hero below, yet nothing of them is drawn. Not a degraded twin.
  "collapsed-menu": (h) =>
    inject(
      h.replace(
        "<main>",
        '<main><div class="more"><button aria-expanded="false">More teas</button><div class="sub"><div class="sub-inner">' +
          '<a href="/green">Green teas</a><a href="/black">Black teas</a><a href="/white">White teas</a>' +
          '<a href="/herbal">Herbal infusions</a></div></div></div>',
      ),
      ".sub { display: grid; grid-template-rows: 0fr; } .sub-inner { overflow: hidden; min-height: 0; } " +
        ".sub a { display: block; padding: 12px 16px; font-size: 24px; }",
    ),
  // Clips as CSS applies them: the tea cards in a scroll box 200 px high (their text scrolls into view, so it is
  // drawn), and a menu of three links positioned below a box 20 px high that hides its overflow but is not the
  // menu's containing block (so the menu escapes its clip). Not degraded twins.
  "scroll-box": (h) => inject(h, ".cards { height: 200px; overflow: auto; }"),
  "escaping-menu": (h) =>
    inject(
      h.replace(
        "<main>",
        '<main><div class="holder"><div class="clipper"><span>Teas</span><ul class="drop"><li><a href="/green">Green</a></li>' +
          '<li><a href="/black">Black</a></li><li><a href="/white">White</a></li></ul></div></div>',
      ),
      ".holder { position: relative; height: 140px; } .clipper { overflow: hidden; height: 24px; } " +
        ".drop { position: absolute; top: 30px; left: 0; margin: 0; padding: 0; list-style: none; display: flex; gap: 16px; }",
    ),
  // A banner with a film behind its words and a darkening layer drawn by ::before, as landing pages make them:
  // the DOM finds no colour behind the text, the screenshot does (v12). Its twins lose the film (its source
  // answers 404, as the bench's broken-images twin makes it) or turn its words dark grey. Not degraded twins.
  film: (h) => inject(h.replace("<main>", `<main>${FILM}`), FILM_CSS),
  "film-broken": (h) =>
    inject(h.replace("<main>", `<main>${FILM.replace("/media/", "/missing/")}`), FILM_CSS),
  "film-faint": (h) =>
    inject(h.replace("<main>", `<main>${FILM}`), `${FILM_CSS} .film .film-text * { color: #3a3a3a; }`),
  // Photos further down with white captions laid over them, and no colour of their own behind the words: below the
  // first screen there is no hit test, and the ancestors' colours would read them white on white (v12). Not a
  // degraded twin.
  captions: (h) =>
    inject(
      h.replace(
        "<footer>",
        '<section class="shots"><figure><img src="/img/sencha.svg" alt="Sencha leaves drying on a tray" width="480" height="300">' +
          "<figcaption>Drying the spring sencha on bamboo trays</figcaption></figure>" +
          '<figure><img src="/img/assam.svg" alt="Assam bushes after the rain" width="480" height="300">' +
          "<figcaption>Assam after the first monsoon rain</figcaption></figure></section><footer>",
      ),
      ".shots { display: grid; grid-template-columns: 1fr 1fr; gap: 24px; max-width: 1100px; margin: 32px auto; } " +
        ".shots figure { position: relative; margin: 0; } .shots img { display: block; width: 100%; height: auto; } " +
        ".shots figcaption { position: absolute; left: 16px; right: 16px; bottom: 16px; color: #fff; font-size: 20px; }",
    ),
  // The team's faces as an avatar stack, each overlapping the next by a third: a designed stack, not controls
  // drawn over one another. Not a degraded twin.
  avatars: (h) =>
    inject(
      h.replace(
        "<footer><p>",
        '<footer><div class="team"><a class="av" href="/team/ana">AN</a><a class="av" href="/team/ben">BE</a>' +
          '<a class="av" href="/team/caz">CA</a><a class="av" href="/team/dee">DE</a></div><p>',
      ),
      ".av { display: inline-block; width: 42px; height: 42px; line-height: 38px; text-align: center; " +
        "border-radius: 50%; border: 2px solid #fff; background: #c0572b; color: #fff !important; " +
        "margin-left: -14px; padding: 0 !important; } .av:first-child { margin-left: 0; }",
    ),
};
const DEGRADED = Object.keys(TWINS).filter(
  (t) =>
    ![
      "intact",
      "one-alt-missing",
      "placeholders",
      "custom-check",
      "custom-check-stripped",
      "mid-grey",
      "stacked-moving",
      "stacked-endless",
      "squeezed",
      "collapsed-menu",
      "avatars",
      "nav-only",
      "scroll-box",
      "escaping-menu",
      "film",
      "film-broken",
      "film-faint",
      "captions",
    ].includes(t),
);
/** Screenshots of captured twins, served as images for pages that are only a screenshot. */
const SHOTS: Record<string, Uint8Array> = {};

function startShop(): Promise<{ origin: string; server: Server }> {
  const hues: Record<string, [number, string]> = {
    hero: [150, "Darjeeling"],
    sencha: [95, "Sencha"],
    oolong: [40, "Oolong"],
    assam: [15, "Assam"],
  };
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? "/", "http://x").pathname;
    const img = path.match(/^\/img\/(\w+)\.svg$/);
    if (path === "/media/loop.webm") {
      res.writeHead(200, { "content-type": "video/webm" }).end(FILM_BYTES);
    } else if (path === "/site.css") {
      res.writeHead(200, { "content-type": "text/css" }).end(CSS);
    } else if (img && hues[img[1]!]) {
      const [hue, label] = hues[img[1]!]!;
      res.writeHead(200, { "content-type": "image/svg+xml" }).end(PHOTO(hue, label));
    } else if (path.startsWith("/shot-img/") && SHOTS[path.slice(10)]) {
      res.writeHead(200, { "content-type": "image/png" }).end(SHOTS[path.slice(10)]);
    } else if (path.startsWith("/shot/")) {
      // A page that is only its screenshot: one full-viewport image, as design archives serve them.
      res
        .writeHead(200, { "content-type": "text/html; charset=utf-8" })
        .end(
          `<!doctype html><title>Shot</title><body style="margin:0"><img src="/shot-img/${path.slice(6)}" alt="Home page" style="display:block;width:100vw;height:100vh"></body>`,
        );
    } else if (TWINS[path.slice(1)]) {
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(TWINS[path.slice(1)]!(INTACT));
    } else {
      res.writeHead(404, { "content-type": "text/plain" }).end("not found");
    }
  });
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () =>
      resolve({ origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server }),
    ),
  );
}

const TEMPLATES = ["overall", "usability", "accessibility", "visual-design", "content"].map((id) =>
  judgeTemplate(id),
);

const desktop: PersonaDevice = { kind: "desktop", viewport: { width: 1280, height: 800 }, network: "fast" };
const phone: PersonaDevice = { kind: "mobile", viewport: { width: 390, height: 844 }, network: "fast" };
const persona = (name: string, p: Partial<Persona>): Persona => ({
  name,
  role: name,
  description: "",
  goals: [],
  traits: [],
  expertise: "intermediate",
  accessibilityNeeds: [],
  device: desktop,
  systemPrompt: null,
  ...p,
});
/** The system autousers' personas (migration 0010), each on the viewport it is captured with here. */
const SYSTEM_PERSONAS: Persona[] = [
  persona("First-time visitor", { expertise: "novice" }),
  persona("Power user", { expertise: "expert" }),
  persona("Screen-reader user", { accessibilityNeeds: ["screen-reader", "keyboard-only"] }),
  persona("Older adult with low vision", {
    expertise: "novice",
    accessibilityNeeds: ["low-vision", "motor"],
  }),
  persona("Mobile shopper on a slow network", { device: phone }),
  persona("Accessibility auditor", {
    expertise: "expert",
    accessibilityNeeds: ["screen-reader", "low-vision", "color-blindness", "keyboard-only"],
  }),
];

const judge = createHeuristicJudge();
const rate = (capture: PageCapture, who: Persona) =>
  judge.rate({
    persona: who,
    instructions: null,
    scenario: null,
    templates: TEMPLATES,
    task: { type: "SSE", capture },
  });

let shop: { origin: string; server: Server };
let browser: AgentBrowser;
const captures: Record<string, PageCapture> = {};

beforeAll(async () => {
  shop = await startShop();
  browser = await launchAgentBrowser();
  for (const [device, name] of [
    [desktop, "desktop"],
    [phone, "phone"],
  ] as const) {
    const page = await browser.open({
      device,
      isAllowedUrl: async (url) => new URL(url).origin === shop.origin,
    });
    for (const twin of Object.keys(TWINS)) {
      captures[`${name}/${twin}`] = await page.visit(`${shop.origin}/${twin}`);
    }
    captures[`${name}/intact-again`] = await page.visit(`${shop.origin}/intact`);
    if (name === "desktop") {
      SHOTS.intact = captures["desktop/intact"]!.screenshot!;
      SHOTS["no-styles"] = captures["desktop/no-styles"]!.screenshot!;
      captures["desktop/shot-designed"] = await page.visit(`${shop.origin}/shot/intact`);
      captures["desktop/shot-plain"] = await page.visit(`${shop.origin}/shot/no-styles`);
      SHOTS["tiny-text"] = captures["desktop/tiny-text"]!.screenshot!;
      captures["desktop/shot-tiny"] = await page.visit(`${shop.origin}/shot/tiny-text`);
    }
    await page.close();
  }
}, 400_000);
afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => shop?.server.close(resolve));
});

const captureFor = (who: Persona, twin: string) =>
  captures[`${who.device.kind === "mobile" ? "phone" : "desktop"}/${twin}`]!;

describe("heuristic-v2 on a real page and its degraded twins", () => {
  it("measures what each degradation changed", () => {
    const r = (twin: string) => captures[`desktop/${twin}`]!.signals.rendering!;
    expect(r("intact").images).toMatchObject({ total: 4, loaded: 4, failed: 0 });
    expect(r("broken-images").images).toMatchObject({ total: 4, loaded: 0, failed: 4 });
    expect(r("intact").contrast.below3Share).toBe(0);
    expect(r("grey-text").contrast.below3Share).toBeGreaterThan(0.5);
    expect(r("intact").text.smallShare).toBe(0);
    expect(r("tiny-text").text).toMatchObject({ smallShare: 1, tinyShare: 1, medianSize: 7 });
    expect(r("intact").styles).toMatchObject({ defaultFontShare: 0, bodyMargin8: false });
    expect(r("no-styles").styles).toMatchObject({ stylesheetRules: 0, bodyMargin8: true });
    // Buttons keep the browser's own sans-serif; everything else falls back to Times.
    expect(r("no-styles").styles.defaultFontShare).toBeGreaterThan(0.9);
    expect(r("no-styles").styles.defaultLinkShare).toBe(1);
    expect(r("intact").layout.overflowRatio).toBe(1);
    expect(r("too-wide").layout.overflowRatio).toBeGreaterThan(1.5);
    expect(r("intact").controls.unnamed).toBe(0);
    expect(r("no-labels").controls.unnamed).toBe(2);
    expect(captures["desktop/no-labels"]!.signals.imagesWithoutAlt).toBe(4);
    expect(r("intact").layout.hiddenShare).toBe(0);
    expect(r("half-hidden").layout.hiddenShare).toBeGreaterThan(0.2);
    expect(r("intact").firstScreenCoverage).toBeGreaterThan(0.5);
    expect(r("empty").firstScreenCoverage).toBeLessThan(0.05);
    const v = (twin: string) => captures[`desktop/${twin}`]!.signals.visual!;
    expect(v("intact").colourfulness).toBeGreaterThan(v("broken-images").colourfulness);
    expect(v("empty").edgeDensity).toBeLessThan(0.01);
    expect(v("empty").whitespace).toBeGreaterThan(0.95);
  });

  it("rates the intact page above every degraded twin, for every system persona and template", async () => {
    let compared = 0;
    for (const who of SYSTEM_PERSONAS) {
      const intact = await rate(captureFor(who, "intact"), who);
      expect(intact.model).toBe(HEURISTIC_MODEL);
      for (const twin of DEGRADED) {
        const worse = await rate(captureFor(who, twin), who);
        for (const t of TEMPLATES) {
          compared++;
          expect(intact.ratings[t.id], `${who.name}, ${t.sourceBuiltInId}, ${twin}`).toBeGreaterThan(
            worse.ratings[t.id]!,
          );
        }
      }
    }
    expect(compared).toBe(SYSTEM_PERSONAS.length * DEGRADED.length * TEMPLATES.length);
  });

  it("puts the intact page in the upper half of the scale and the empty, broken one in the lower half", async () => {
    for (const who of SYSTEM_PERSONAS) {
      const intact = await rate(captureFor(who, "intact"), who);
      const empty = await rate(captureFor(who, "empty"), who);
      for (const t of TEMPLATES) {
        expect(intact.ratings[t.id], `${who.name} intact ${t.sourceBuiltInId}`).toBeGreaterThanOrEqual(5);
        expect(empty.ratings[t.id], `${who.name} empty ${t.sourceBuiltInId}`).toBeLessThanOrEqual(3);
      }
    }
  });

  it("says in words what drove a low rating", async () => {
    const who = SYSTEM_PERSONAS[0]!;
    const broken = await rate(captureFor(who, "broken-images"), who);
    expect(broken.evidence[0]).toBe("4 of 4 images failed to load (a text alternative stands in)");
    expect(broken.justification).toContain("What held it down most: 4 of 4 images failed to load");
    const grey = await rate(captureFor(who, "grey-text"), who);
    expect(grey.evidence[0]).toMatch(/^\d+% of the text below 2:1 contrast, \d+% below 3:1/);
    const bare = await rate(captureFor(who, "no-styles"), who);
    expect(bare.evidence.join("\n")).toMatch(/few author styles apply .*text in the browser's default serif/);
    const unlabelled = await rate(captureFor(SYSTEM_PERSONAS[2]!, "no-labels"), SYSTEM_PERSONAS[2]!);
    expect(unlabelled.evidence[0]).toBe(
      "4 images without a text alternative, 2 form fields without a label, 2 of 13 controls without a name",
    );
    const empty = await rate(captureFor(who, "empty"), who);
    expect(empty.evidence[0]).toMatch(
      /^outside navigation and sidebars, [0-4](\.\d)?% of the first screen holds content and the page has 1 word$/,
    );
  });

  it("measures and rates the same page the same way twice", async () => {
    for (const device of ["desktop", "phone"]) {
      const a = captures[`${device}/intact`]!;
      const b = captures[`${device}/intact-again`]!;
      // Timings, and whether axe finished within its time limit, depend on the clock, not on the page.
      const { timings: _ta, axeChecked: _ca, ...first } = a.signals;
      const { timings: _tb, axeChecked: _cb, ...second } = b.signals;
      expect(second).toEqual(first);
    }
    for (const who of SYSTEM_PERSONAS) {
      const a = await rate(captureFor(who, "intact"), who);
      const b = await rate(captureFor(who, "intact-again"), who);
      expect(b.ratings).toEqual(a.ratings);
    }
  });

  it("tells two pages that are only a screenshot apart by their design (the intact page's and its unstyled twin's)", async () => {
    const designed = captures["desktop/shot-designed"]!;
    const plain = captures["desktop/shot-plain"]!;
    // Same DOM, same defects: only the pixels differ.
    expect(designed.signals.axeViolations).toEqual(plain.signals.axeViolations);
    expect(visualAppeal(designed.signals.visual!).appeal).toBeGreaterThan(
      visualAppeal(plain.signals.visual!).appeal,
    );
    expect(designed.signals.visual!.colourfulness).toBeGreaterThan(plain.signals.visual!.colourfulness);
    for (const who of SYSTEM_PERSONAS.filter((p) => !p.accessibilityNeeds.includes("screen-reader"))) {
      if (who.device.kind === "mobile") continue;
      const a = await rate(designed, who);
      const b = await rate(plain, who);
      // The rounded ratings of two pages this alike may tie; the quality behind them must not.
      for (const t of TEMPLATES.filter((t) => ["overall", "visual-design"].includes(t.sourceBuiltInId!))) {
        const qa = qualityV2(designed.signals, t, who).quality;
        const qb = qualityV2(plain.signals, t, who).quality;
        expect(qa, `${who.name} ${t.sourceBuiltInId}`).toBeGreaterThan(qb);
        expect(a.ratings[t.id]).toBeGreaterThanOrEqual(b.ratings[t.id]!);
      }
      expect(a.evidence.join("\n")).toMatch(/visual appeal 0\.\d+/);
    }
  });

  it("judges a page that is one picture by the design in it, over most of the scale (v7)", async () => {
    const designed = captures["desktop/shot-designed"]!;
    const plain = captures["desktop/shot-plain"]!;
    expect(isPicture(designed.signals)).toBe(true);
    expect(isPicture(plain.signals)).toBe(true);
    // A page with markup of its own is not a picture, whatever its images.
    expect(isPicture(captures["desktop/intact"]!.signals)).toBe(false);
    expect(isPicture(captures["desktop/broken-images"]!.signals)).toBe(false);
    const overall = TEMPLATES[0]!;
    for (const who of SYSTEM_PERSONAS.filter((p) => p.device.kind === "desktop")) {
      const reader = readerOf(who);
      const q = qualityV2(designed.signals, overall, who);
      if (reader.screenReader && !reader.lowVision) {
        // Nothing to hear: the picture's wrapper is all a screen reader finds, and it is empty.
        expect(q.gates.map((g) => g.name)).toContain("content");
        expect(q.gates.map((g) => g.name)).not.toContain("picture");
        continue;
      }
      // The wrapper's missing alt text is the same for every design and is not held against it.
      expect(q.gates.map((g) => g.name)).toEqual(["picture"]);
      const position = appealPosition(visualAppeal(designed.signals.visual!).appeal);
      expect(q.quality).toBeCloseTo(
        QUALITY_FLOOR ** (1 - (PICTURE_SPAN.low + (PICTURE_SPAN.high - PICTURE_SPAN.low) * position)),
        2,
      );
      const a = await rate(designed, who);
      // The same wrapper around a screenshot with next to nothing drawn on it (a blank, grey screen).
      const blank = {
        ...designed,
        signals: {
          ...designed.signals,
          visual: {
            ...designed.signals.visual!,
            colourfulness: 2,
            edgeDensity: 0.0005,
            whitespace: 0.99,
            quadtreeDensity: 0.2,
            figureGround: 0.1,
          },
        },
      };
      const b = await rate(blank, who);
      // The design decides over most of the scale: a designed screen in the upper half, a blank one at the bottom.
      expect(a.ratings[overall.id]!, who.name).toBeGreaterThanOrEqual(5);
      expect(b.ratings[overall.id]!, who.name).toBeLessThanOrEqual(2);
      expect(a.evidence[0]).toMatch(
        /^the page is one picture, so its design is judged from the picture at its natural size \(1280 × 800 px\)/,
      );
    }
  });

  it("holds down a picture drawn in the browser's default link colours, as an unstyled page (v13)", async () => {
    const designed = captures["desktop/shot-designed"]!;
    const plain = captures["desktop/shot-plain"]!;
    // Measured on the screenshot page's own screenshot: the unstyled twin's links in default blue on a bare ground.
    expect(designed.signals.visual!.defaultLinkInk).toBe(0);
    expect(plain.signals.visual!.defaultLinkInk).toBeGreaterThan(0);
    expect(plain.signals.visual!.surfaceShare!).toBeLessThan(designed.signals.visual!.surfaceShare!);
    const overall = TEMPLATES[0]!;
    for (const who of SYSTEM_PERSONAS.filter((p) => p.device.kind === "desktop")) {
      const reader = readerOf(who);
      if (reader.screenReader && !reader.lowVision) continue;
      const q = qualityV2(plain.signals, overall, who);
      const styles = q.gates.find((g) => g.name === "styles");
      expect(styles?.reason, who.name).toMatch(/default link colours .* style sheets did not apply/);
      expect(styles!.factor).toBeLessThan(1);
      expect(styles!.factor).toBeGreaterThanOrEqual(0.5);
      expect(qualityV2(designed.signals, overall, who).gates.map((g) => g.name)).not.toContain("styles");
      const a = await rate(designed, who);
      const b = await rate(plain, who);
      expect(a.ratings[overall.id]!, who.name).toBeGreaterThan(b.ratings[overall.id]!);
      expect(b.evidence.join("\n")).toMatch(/default link colours/);
    }
  });

  it("holds down a picture whose text is drawn small, low vision most (v13)", async () => {
    const designed = captures["desktop/shot-designed"]!;
    // The 7 px twin's screenshot draws its words smaller; the photographs' own lettering keeps some strokes tall.
    expect(captures["desktop/shot-tiny"]!.signals.visual!.glyphHeight!).toBeLessThan(
      designed.signals.visual!.glyphHeight!,
    );
    expect(designed.signals.visual!.glyphHeight!).toBeGreaterThan(GLYPH_SMALL.readable);
    // The same picture with its text drawn as 8 px text is (strokes 5.5 px tall).
    const tiny = {
      ...designed,
      signals: {
        ...designed.signals,
        visual: { ...designed.signals.visual!, glyphHeight: GLYPH_SMALL.tiny },
      },
    };
    const overall = TEMPLATES[0]!;
    const factors: Record<string, number> = {};
    for (const who of SYSTEM_PERSONAS.filter((p) => p.device.kind === "desktop")) {
      const reader = readerOf(who);
      if (reader.screenReader && !reader.lowVision) continue;
      const gate = qualityV2(tiny.signals, overall, who).gates.find((g) => g.name === "readability");
      expect(gate?.reason, who.name).toMatch(
        /the picture's text is drawn small: its tallest strokes average 5.5 px/,
      );
      factors[who.name] = gate!.factor;
      expect(qualityV2(designed.signals, overall, who).gates.map((g) => g.name)).not.toContain("readability");
      const a = await rate(designed, who);
      const b = await rate(tiny, who);
      expect(a.ratings[overall.id]! - b.ratings[overall.id]!, who.name).toBeGreaterThanOrEqual(2);
    }
    const lowVision = SYSTEM_PERSONAS.find((p) => p.accessibilityNeeds.includes("low-vision"))!;
    const sighted = SYSTEM_PERSONAS.find(
      (p) => p.accessibilityNeeds.length === 0 && p.device.kind === "desktop",
    )!;
    expect(factors[sighted.name]).toBeCloseTo(0.4, 3);
    expect(factors[lowVision.name]!).toBeLessThan(factors[sighted.name]!);
  });

  it("holds weak figure-ground contrast against a picture for low vision only, on top of the shared appeal", () => {
    const shot = captures["desktop/shot-designed"]!;
    const faint = {
      ...shot,
      signals: { ...shot.signals, visual: { ...shot.signals.visual!, figureGround: 0.1 } },
    };
    const overall = TEMPLATES[0]!;
    const lowVision = SYSTEM_PERSONAS.find((p) => p.accessibilityNeeds.includes("low-vision"))!;
    const sighted = SYSTEM_PERSONAS.find((p) => p.accessibilityNeeds.length === 0)!;
    const gate = (who: typeof sighted) =>
      qualityV2(faint.signals, overall, who).gates.find((g) => g.reason.includes("stand out weakly"));
    expect(gate(lowVision)!.factor).toBeLessThan(0.8);
    expect(gate(sighted)).toBeUndefined();
  });

  it("makes a screen-reader user react to unnamed things in proportion to how many there are", async () => {
    const who = SYSTEM_PERSONAS[2]!;
    const severity = (twin: string) => {
      const c = captures[`desktop/${twin}`]!.signals;
      return namesSeverity(c, c.rendering!);
    };
    expect(severity("intact")).toBe(0);
    expect(captures["desktop/one-alt-missing"]!.signals.imagesWithoutAlt).toBe(1);
    // One image of four without alt: half of (1/4 averaged over three kinds) plus half of 1 / (1 + 8) for the count.
    expect(severity("one-alt-missing")).toBeCloseTo(0.5 * (0.25 / 3) + 0.5 / 9, 2);
    // Four images, two fields and two buttons unnamed: far worse than one.
    expect(severity("no-labels")).toBeGreaterThan(severity("one-alt-missing") + 0.3);
    const intact = await rate(captureFor(who, "intact"), who);
    const one = await rate(captureFor(who, "one-alt-missing"), who);
    const none = await rate(captureFor(who, "no-labels"), who);
    for (const t of TEMPLATES) {
      expect(intact.ratings[t.id]!, t.sourceBuiltInId!).toBeGreaterThanOrEqual(one.ratings[t.id]!);
      expect(one.ratings[t.id]! - none.ratings[t.id]!, t.sourceBuiltInId!).toBeGreaterThanOrEqual(2);
    }
  });

  it("gates holes in the layout: content kept in the flow but hidden", async () => {
    const hidden = captures["desktop/half-hidden"]!.signals.rendering!.layout.hiddenShare!;
    for (const who of SYSTEM_PERSONAS.filter((p) => p.device.kind === "desktop")) {
      const gate = qualityV2(captures["desktop/half-hidden"]!.signals, TEMPLATES[0]!, who).gates.find(
        (g) => g.name === "hidden",
      );
      expect(gate?.factor).toBeCloseTo(Math.max(0.35, 1 - 1.2 * hidden), 3);
      expect(gate?.reason).toMatch(/of the first screen is laid out for content that does not show/);
    }
  });

  it("finds controls covered by other content and gates every persona, a phone and a screen reader included", async () => {
    for (const device of ["desktop", "phone"]) {
      const intact = captures[`${device}/intact`]!.signals.rendering!.layout;
      const stacked = captures[`${device}/stacked`]!.signals.rendering!.layout;
      expect(intact.firstScreenControls, device).toBeGreaterThan(3);
      expect(intact.obscuredControls, device).toBe(0);
      expect(stacked.obscuredControls, device).toBeGreaterThan(0);
      expect(stacked.obscuredControls! / stacked.firstScreenControls!, device).toBeGreaterThan(0.2);
    }
    const severity = (device: string) => obscuredSeverity(captures[`${device}/stacked`]!.signals.rendering!);
    for (const who of SYSTEM_PERSONAS) {
      const signals = captureFor(who, "stacked").signals;
      const gate = qualityV2(signals, TEMPLATES[0]!, who).gates.find((g) => g.name === "obscured");
      const reader =
        who.device.kind === "mobile" || who.accessibilityNeeds.includes("motor")
          ? 0.75
          : who.accessibilityNeeds.includes("screen-reader")
            ? 0.6
            : 0.5;
      expect(gate?.factor, who.name).toBeCloseTo(
        Math.max(0.3, 1 - reader * severity(who.device.kind === "mobile" ? "phone" : "desktop")),
        2,
      );
      expect(gate?.reason).toMatch(/controls on the first screen are covered by other content/);
      expect(
        qualityV2(captureFor(who, "intact").signals, TEMPLATES[0]!, who).gates.map((g) => g.name),
      ).not.toContain("obscured");
      const overlap = signals.rendering!.layout.overlappingTextShare;
      const layout = qualityV2(signals, TEMPLATES[0]!, who).gates.find((g) => g.name === "layout");
      if (overlap > 0.05)
        expect(layout?.factor, who.name).toBeCloseTo(
          Math.max(0.3, 1 - 0.8 * overlap - 0.15 * Math.min(1, (overlap - 0.05) / 0.05)),
          2,
        );
      else expect(layout, who.name).toBeUndefined();
      const rated = await rate(captureFor(who, "stacked"), who);
      expect(rated.evidence.join("; ")).toMatch(/first-screen controls covered by other content/);
    }
  });

  it("does not count text or controls caught mid-transition as stacked, and does count them under an endless animation (v9)", () => {
    for (const device of ["desktop", "phone"]) {
      const layout = (twin: string) => captures[`${device}/${twin}`]!.signals.rendering!.layout;
      expect(layout("stacked").overlappingTextShare, device).toBeGreaterThan(0.05);
      expect(layout("stacked").obscuredControls, device).toBeGreaterThan(0);
      expect(layout("stacked-moving"), device).toMatchObject({
        overlappingTextShare: 0,
        obscuredControls: 0,
      });
      expect(layout("stacked-endless"), device).toMatchObject({
        overlappingTextShare: layout("stacked").overlappingTextShare,
        obscuredControls: layout("stacked").obscuredControls,
      });
    }
  });

  it("finds a layout collapsed around its content (words broken, fields squeezed, controls stacked) and gates it", async () => {
    for (const device of ["desktop", "phone"]) {
      const intact = captures[`${device}/intact`]!.signals.rendering!;
      const stacked = captures[`${device}/stacked`]!.signals.rendering!;
      expect(intact.layout, device).toMatchObject({
        brokenWordShare: 0,
        collapsedFields: 0,
        overlappingControls: 0,
      });
      expect(collapsedSeverity(intact), device).toBe(0);
      expect(collapsedSeverity(stacked), device).toBeGreaterThan(0.3);
    }
    for (const who of SYSTEM_PERSONAS) {
      const signals = captureFor(who, "stacked").signals;
      const gate = qualityV2(signals, TEMPLATES[0]!, who).gates.find((g) => g.name === "collapsed");
      const k =
        who.device.kind === "mobile" || who.accessibilityNeeds.includes("low-vision")
          ? 0.7
          : who.accessibilityNeeds.includes("screen-reader")
            ? 0.5
            : 0.6;
      expect(gate?.factor, who.name).toBeCloseTo(
        Math.max(0.3, 1 - k * collapsedSeverity(signals.rendering!)),
        2,
      );
      expect(gate?.reason, who.name).toMatch(/^the layout has collapsed: /);
      expect(
        qualityV2(captureFor(who, "intact").signals, TEMPLATES[0]!, who).gates.map((g) => g.name),
      ).not.toContain("collapsed");
    }
  });

  it("gates a phone's first screen squeezed into a strip, and leaves a desktop's narrow column alone (v10)", async () => {
    const phoneIntact = captures["phone/intact"]!.signals.rendering!;
    const phoneSqueezed = captures["phone/squeezed"]!.signals.rendering!;
    expect(phoneIntact.layout.viewportWidth).toBe(390);
    expect(phoneIntact.layout.contentSpan).toBeGreaterThan(0.8);
    expect(phoneSqueezed.layout.contentSpan).toBeLessThan(0.5);
    expect(squeezedSeverity(phoneIntact)).toBe(0);
    expect(squeezedSeverity(phoneSqueezed)).toBeGreaterThan(0.3);
    const desktopSqueezed = captures["desktop/squeezed"]!.signals.rendering!;
    expect(desktopSqueezed.layout.viewportWidth).toBeGreaterThanOrEqual(1024);
    expect(desktopSqueezed.layout.contentSpan).toBeLessThan(0.5);
    expect(squeezedSeverity(desktopSqueezed)).toBe(0);
    for (const who of SYSTEM_PERSONAS) {
      const squeezed = qualityV2(captureFor(who, "squeezed").signals, TEMPLATES[0]!, who);
      const gate = squeezed.gates.find((g) => g.name === "collapsed");
      if (who.device.kind !== "mobile") {
        expect(gate, who.name).toBeUndefined();
        continue;
      }
      expect(gate?.reason).toMatch(/the first screen squeezed into \d+% of the phone's width/);
      const intact = await rate(captureFor(who, "intact"), who);
      const worse = await rate(captureFor(who, "squeezed"), who);
      for (const t of TEMPLATES)
        expect(intact.ratings[t.id], `${who.name}, ${t.sourceBuiltInId}`).toBeGreaterThan(
          worse.ratings[t.id]!,
        );
    }
  });

  it("reports fields named only by their placeholder, and counts them unlabelled", async () => {
    const at = (twin: string) => captures[`desktop/${twin}`]!.signals;
    expect(at("placeholders").unlabelledFields).toBe(2);
    expect(at("placeholders").rendering!.controls.placeholderOnly).toBe(2);
    expect(at("no-labels").rendering!.controls.placeholderOnly).toBe(0);
    expect(at("intact").rendering!.controls.placeholderOnly).toBe(0);
    // A sighted visitor sees no label beside either field once the labels go, placeholder or not (v6).
    expect(at("intact").rendering!.controls).toMatchObject({ visibleFields: 2, visibleUnlabelled: 0 });
    expect(at("no-labels").rendering!.controls.visibleUnlabelled).toBe(2);
    expect(at("placeholders").rendering!.controls.visibleUnlabelled).toBe(2);
    expect(namesSeverity(at("placeholders"), at("placeholders").rendering!)).toBeGreaterThan(0);
    const who = SYSTEM_PERSONAS[2]!;
    const rated = await rate(captureFor(who, "placeholders"), who);
    expect(rated.evidence[0]).toBe("2 form fields without a label (2 named only by a placeholder)");
    const intact = await rate(captureFor(who, "intact"), who);
    for (const t of TEMPLATES) expect(intact.ratings[t.id]!).toBeGreaterThan(rated.ratings[t.id]!);
  });

  it("counts a hidden checkbox its label draws among the fields a screen reader meets (v8) and a sighted visitor sees (v9)", async () => {
    const at = (twin: string) => captures[`desktop/${twin}`]!.signals;
    const kept = at("custom-check");
    const stripped = at("custom-check-stripped");
    expect(kept).toMatchObject({ formFields: 3, unlabelledFields: 2 });
    expect(stripped).toMatchObject({ formFields: 3, unlabelledFields: 3 });
    // Over the shown fields alone both forms were wholly unnamed; over the fields a screen reader meets, the
    // stripped label is a third of them.
    const gap = namesSeverity(stripped, stripped.rendering!) - namesSeverity(kept, kept.rendering!);
    const shownOnly = (c: typeof kept) => namesSeverity({ ...c, formFields: undefined }, c.rendering!);
    expect(gap).toBeGreaterThan(2 * (shownOnly(stripped) - shownOnly(kept)));
    const reader = SYSTEM_PERSONAS[2]!;
    const keptScore = await rate(captureFor(reader, "custom-check"), reader);
    const strippedScore = await rate(captureFor(reader, "custom-check-stripped"), reader);
    expect(keptScore.ratings[TEMPLATES[0]!.id]!).toBeGreaterThan(strippedScore.ratings[TEMPLATES[0]!.id]!);
    expect(strippedScore.evidence.join(" ")).toMatch(/3 form fields without a label/);
    // A sighted visitor sees the checkbox through its label (v9): a third field, labelled; stripped, it is gone.
    expect(kept.rendering!.controls).toMatchObject({ visibleFields: 3, visibleUnlabelled: 2 });
    expect(stripped.rendering!.controls).toMatchObject({ visibleFields: 2, visibleUnlabelled: 2 });
    const visitor = SYSTEM_PERSONAS[0]!;
    expect(qualityV2(kept, TEMPLATES[0]!, visitor).quality).toBeGreaterThan(
      qualityV2(stripped, TEMPLATES[0]!, visitor).quality,
    );
  });

  it("finds a field keyboard focus reaches that nothing draws, and gates it for every persona (v11)", async () => {
    const at = (twin: string) => captures[`desktop/${twin}`]!.signals.rendering!;
    // The custom checkbox drawn by its label is no ghost; with the label gone nothing draws it.
    expect(at("intact").controls.ghostFields).toBe(0);
    expect(at("custom-check").controls.ghostFields).toBe(0);
    expect(at("custom-check-stripped").controls.ghostFields).toBe(1);
    expect(ghostSeverity(at("custom-check"))).toBe(0);
    // One invisible checkbox beside two visible fields: half of a third, half of 1 / 3.
    expect(ghostSeverity(at("custom-check-stripped"))).toBeCloseTo(0.5 / 3 + 0.5 / 3, 3);
    for (const who of SYSTEM_PERSONAS) {
      const stripped = captureFor(who, "custom-check-stripped");
      if (who.device.kind === "mobile") expect(stripped.signals.rendering!.controls.ghostFields).toBe(1);
      const gate = qualityV2(stripped.signals, TEMPLATES[0]!, who).gates.find((g) => g.name === "ghost");
      expect(gate?.reason, who.name).toBe("1 form field keyboard focus reaches but nothing draws");
      const k =
        readerOf(who).screenReader && !readerOf(who).lowVision
          ? 0.3
          : readerOf(who).keyboard || readerOf(who).motor
            ? 0.6
            : 0.5;
      expect(gate!.factor, who.name).toBeCloseTo(1 - k * ghostSeverity(stripped.signals.rendering!), 3);
      const kept = await rate(captureFor(who, "custom-check"), who);
      const lost = await rate(stripped, who);
      expect(kept.ratings[TEMPLATES[0]!.id]!, who.name).toBeGreaterThan(lost.ratings[TEMPLATES[0]!.id]!);
    }
  });

  it("counts only the page's own content, apart from its navigation, as a page's worth (v11)", async () => {
    const intact = captures["desktop/intact"]!.signals;
    const shell = captures["desktop/nav-only"]!.signals;
    // The header's band and brand are the page's own; its four links are navigation.
    expect(intact.rendering!.ownContent!.coverage).toBeGreaterThan(0.2);
    expect(intact.rendering!.ownContent!.words).toBeLessThan(intact.wordCount);
    expect(shell.rendering!.ownContent!.words).toBeLessThan(5);
    expect(shell.rendering!.ownContent!.coverage).toBeLessThan(shell.rendering!.firstScreenCoverage);
    for (const who of SYSTEM_PERSONAS) {
      const gate = qualityV2(captureFor(who, "nav-only").signals, TEMPLATES[0]!, who).gates.find(
        (g) => g.name === "content",
      );
      expect(gate?.reason, who.name).toMatch(/outside (its )?navigation/);
      // Judged on the whole page, the menu's words would have passed for a page's worth for a screen reader.
      const whole = captureFor(who, "nav-only").signals;
      const before = { ...whole, rendering: { ...whole.rendering!, ownContent: undefined } };
      expect(qualityV2(whole, TEMPLATES[0]!, who).quality, who.name).toBeLessThan(
        qualityV2(before, TEMPLATES[0]!, who).quality,
      );
      const kept = await rate(captureFor(who, "intact"), who);
      const lost = await rate(captureFor(who, "nav-only"), who);
      expect(kept.ratings[TEMPLATES[0]!.id]!, who.name).toBeGreaterThan(lost.ratings[TEMPLATES[0]!.id]!);
    }
  });

  it("leaves what a collapsed menu clips away out of the drawn measures (v11)", () => {
    const intact = captures["desktop/intact"]!.signals.rendering!;
    const menu = captures["desktop/collapsed-menu"]!.signals.rendering!;
    // The menu's four links are laid out over the hero, clipped to a box of no height: not drawn over its text,
    // not covering or covered by its controls.
    expect(menu.layout.overlappingTextShare).toBe(0);
    expect(menu.layout.overlappingControls).toBe(0);
    expect(menu.layout.obscuredControls).toBe(intact.layout.obscuredControls);
    // The same links blocks stacked on each other still are (nothing clips them).
    expect(captures["desktop/stacked"]!.signals.rendering!.layout.overlappingControls).toBeGreaterThan(0);
    // Still there for a screen reader: the links count among the controls.
    expect(menu.controls.total).toBe(intact.controls.total + 5);
    expect(collapsedSeverity(menu)).toBe(0);
  });

  it("applies clips as CSS does: a scroll box's content and a box escaping a clip are drawn (v11)", () => {
    const intact = captures["desktop/intact"]!.signals.rendering!;
    // The cards' text scrolls into view: all of it is still measured.
    expect(captures["desktop/scroll-box"]!.signals.rendering!.text.chars).toBe(intact.text.chars);
    // The menu is positioned against the holder, outside the clipping box: its three links are on the first
    // screen, drawn and uncovered.
    const menu = captures["desktop/escaping-menu"]!.signals.rendering!;
    expect(menu.layout.firstScreenControls).toBe(intact.layout.firstScreenControls! + 3);
    expect(menu.layout.obscuredControls).toBe(intact.layout.obscuredControls);
    expect(menu.text.chars).toBe(intact.text.chars + "TeasGreenBlackWhite".length);
  });

  it("counts a film that plays as media, and one that finds no source as failed for every persona (v12)", async () => {
    const r = (twin: string) => captures[`desktop/${twin}`]!.signals.rendering!;
    expect(r("film").images).toMatchObject({ total: 5, loaded: 5, failed: 0 });
    expect(r("film-broken").images).toMatchObject({ total: 5, loaded: 4, failed: 1 });
    expect(r("film-broken").images.failedAreaShare).toBeGreaterThan(0.2);
    for (const who of SYSTEM_PERSONAS) {
      const film = captureFor(who, "film");
      const broken = captureFor(who, "film-broken");
      expect(broken.signals.rendering!.images.failed, who.name).toBe(1);
      const gate = qualityV2(broken.signals, TEMPLATES[0]!, who).gates.find((g) => g.name === "images");
      expect(gate?.reason, who.name).toBe("1 of 5 images failed to load (a text alternative stands in)");
      expect(qualityV2(broken.signals, TEMPLATES[0]!, who).quality, who.name).toBeLessThan(
        qualityV2(film.signals, TEMPLATES[0]!, who).quality,
      );
    }
  });

  it("reads the contrast of text over a film and its overlay on the screenshot, and leaves the rest to the DOM (v12)", async () => {
    const c = (twin: string, device = "desktop") =>
      captures[`${device}/${twin}`]!.signals.rendering!.contrast;
    expect(c("intact").screenshot).toBeUndefined();
    for (const device of ["desktop", "phone"]) {
      // The banner's ~140 characters: white on a film darkened by its ::before, and dark grey on it.
      expect(c("film", device).screenshot!.measuredChars, device).toBeGreaterThan(100);
      expect(c("film", device).screenshot!.below45Share, device).toBe(0);
      expect(c("film-faint", device).screenshot!.below3Share, device).toBe(1);
      expect(c("film", device).measuredChars, device).toBe(c("intact", device).measuredChars);
    }
    const film = captures["desktop/film"]!.signals;
    const faint = captures["desktop/film-faint"]!.signals;
    expect(contrastOf(faint.rendering!).below3Share).toBeGreaterThan(contrastOf(film.rendering!).below3Share);
    // Axe leaves text over a film out of its verdict; the screenshot's reading counts in full all the same.
    expect(faint.contrastFailures).toBe(film.contrastFailures);
    const lowVision = SYSTEM_PERSONAS.find(
      (p) => p.accessibilityNeeds.includes("low-vision") && !p.accessibilityNeeds.includes("screen-reader"),
    )!;
    const readability = qualityV2(faint, TEMPLATES[0]!, lowVision).gates.find(
      (g) => g.name === "readability",
    );
    expect(readability?.reason).toMatch(/below 3:1/);
    // A banner's two lines are a small part of the page: they cost quality, not yet a point of the scale.
    expect(qualityV2(faint, TEMPLATES[0]!, lowVision).quality).toBeLessThan(
      qualityV2(film, TEMPLATES[0]!, lowVision).quality,
    );
    const evidence = (await rate(captureFor(lowVision, "film-faint"), lowVision)).evidence.join("\n");
    expect(evidence).toMatch(
      /characters over a picture, video or overlay read on the screenshot: 100% below 3:1/,
    );
  });

  it("leaves text over a picture below the first screen unmeasured instead of reading it on the canvas (v12)", () => {
    for (const device of ["desktop", "phone"]) {
      const c = (twin: string) => captures[`${device}/${twin}`]!.signals.rendering!.contrast;
      const r = captures[`${device}/captions`]!.signals.rendering!;
      // The captions are there (two more images, their words counted as text), yet not in the contrast shares.
      expect(r.images.total, device).toBe(captures[`${device}/intact`]!.signals.rendering!.images.total + 2);
      expect(r.text.chars, device).toBeGreaterThan(
        captures[`${device}/intact`]!.signals.rendering!.text.chars + 50,
      );
      expect(c("captions").measuredChars, device).toBe(c("intact").measuredChars);
      expect(c("captions").below2Share, device).toBe(c("intact").below2Share);
      expect(c("captions").screenshot, device).toBeUndefined();
    }
  });

  it("does not count an avatar stack as controls drawn over each other (v11)", () => {
    const faces = captures["desktop/avatars"]!.signals.rendering!;
    expect(faces.controls.total).toBe(captures["desktop/intact"]!.signals.rendering!.controls.total + 4);
    expect(faces.layout.overlappingControls).toBe(0);
    expect(collapsedSeverity(faces)).toBe(0);
  });

  it("weighs text under 3:1 that most can read (2.8:1) at half the cost of text faint to everyone (v9)", async () => {
    const at = (twin: string) => captures[`desktop/${twin}`]!.signals;
    const mid = at("mid-grey").rendering!.contrast;
    const faint = at("grey-text").rendering!.contrast;
    expect(mid.below3Share).toBeGreaterThan(0.5);
    expect(mid.below2Share).toBe(0);
    expect(faint.below2Share).toBeGreaterThan(0.5);
    for (const who of SYSTEM_PERSONAS.filter((p) => !readerOf(p).screenReader || readerOf(p).lowVision)) {
      const score = async (twin: string) =>
        (await rate(captureFor(who, twin), who)).ratings[TEMPLATES[0]!.id]!;
      expect(await score("mid-grey"), who.name).toBeGreaterThan(await score("grey-text"));
      expect(await score("mid-grey"), who.name).toBeLessThanOrEqual(await score("intact"));
      // A capture from before v9 (no 2:1 share) counts all text under 3:1 as faint, as v8 did.
      const signals = captureFor(who, "mid-grey").signals;
      const before = {
        ...signals,
        rendering: {
          ...signals.rendering!,
          contrast: { ...signals.rendering!.contrast, below2Share: undefined },
        },
      };
      expect(qualityV2(before, TEMPLATES[0]!, who).quality).toBeLessThan(
        qualityV2(signals, TEMPLATES[0]!, who).quality,
      );
    }
  });

  it("costs a page wider than the screen by how much wider, up to two screens (v9)", () => {
    expect(overflowSeverity(1)).toBe(0);
    expect(overflowSeverity(1.09)).toBeCloseTo(0.56, 2);
    expect(overflowSeverity(1.41)).toBeLessThan(overflowSeverity(1.8));
    expect(overflowSeverity(2)).toBe(1);
    expect(overflowSeverity(5)).toBe(1);
    // The same phone capture 41% too wide and five screens wide: v8 gated both alike.
    const shopper = SYSTEM_PERSONAS[4]!;
    const signals = captureFor(shopper, "intact").signals;
    const wide = (overflowRatio: number) => ({
      ...signals,
      rendering: { ...signals.rendering!, layout: { ...signals.rendering!.layout, overflowRatio } },
    });
    const q = (ratio: number) => qualityV2(wide(ratio), TEMPLATES[0]!, shopper).quality;
    expect(q(1.09)).toBeGreaterThan(q(1.41));
    expect(q(1.41)).toBeGreaterThan(q(5.13));
  });

  it("sees content in a page that is only a screenshot for a screen-reader user with low vision, not without", () => {
    const shot = captures["desktop/shot-designed"]!.signals;
    const auditor = SYSTEM_PERSONAS.find((p) => p.name === "Accessibility auditor")!;
    const blind = SYSTEM_PERSONAS.find((p) => p.name === "Screen-reader user")!;
    expect(qualityV2(shot, TEMPLATES[0]!, auditor).gates.map((g) => g.name)).not.toContain("content");
    expect(qualityV2(shot, TEMPLATES[0]!, blind).gates.find((g) => g.name === "content")?.reason).toMatch(
      /^almost nothing to hear/,
    );
  });

  it("scores axe as unknown (0.5) when its checks did not finish, instead of passing the page", async () => {
    const who = SYSTEM_PERSONAS[0]!;
    const intact = captures["desktop/no-labels"]!;
    const unchecked = { ...intact, signals: { ...intact.signals, axeViolations: [], axeChecked: false } };
    expect(intact.signals.axeChecked).toBe(true);
    expect(intact.signals.axeViolations.length).toBeGreaterThan(0);
    expect(componentScoresV2(unchecked.signals).axe).toBe(0.5);
    expect(componentScoresV2(intact.signals).axe).toBeLessThan(1);
    const result = await rate(unchecked, who);
    expect(result.evidence).toContain("axe-core checks did not finish, so none are counted");
  });

  it("maps quality onto the scale on a log scale, so a gate costs a point wherever the page stands", () => {
    const t = TEMPLATES[0]!;
    expect(sseScoreV2(1, t)).toBe(7);
    expect(sseScoreV2(QUALITY_FLOOR, t)).toBe(1);
    expect(sseScoreV2(0.01, t)).toBe(1);
    // One point is a factor of QUALITY_FLOOR^(1/6) ≈ 0.729: a gate at 0.72 takes at least a point off anywhere.
    for (let q = QUALITY_FLOOR / 0.72; q <= 1; q += 0.01) {
      expect(sseScoreV2(q, t) - sseScoreV2(q * 0.72, t), `q ${q}`).toBeGreaterThanOrEqual(1);
    }
  });

  it("rates a capture stored before the rendering measures existed with the defect formulas alone", async () => {
    const who = SYSTEM_PERSONAS[0]!;
    const { rendering: _r, visual: _v, ...older } = captures["desktop/intact"]!.signals;
    const result = await rate({ ...captures["desktop/intact"]!, signals: older }, who);
    expect(result.model).toBe(HEURISTIC_MODEL);
    expect(result.justification).not.toContain("What held it down");
    expect(result.ratings.tpl_overall).toBeGreaterThanOrEqual(5);
  });

  it("reads a screenshot in a few tens of milliseconds", () => {
    for (const key of ["desktop/intact", "phone/intact"]) {
      const png = captures[key]!.screenshot!;
      const again = visualSignals(png, key.startsWith("phone") ? 2 : 1);
      expect(again).toEqual(captures[key]!.signals.visual);
      // The fastest of a few runs: tens of ms on an idle core; the bound leaves room for a busy machine.
      let ms = Number.POSITIVE_INFINITY;
      for (let i = 0; i < 5; i++) {
        const started = performance.now();
        visualSignals(png, key.startsWith("phone") ? 2 : 1);
        ms = Math.min(ms, performance.now() - started);
      }
      expect(ms).toBeLessThan(1000);
    }
  });
});
