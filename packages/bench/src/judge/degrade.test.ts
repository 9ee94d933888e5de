import { describe, expect, it } from "vitest";
import { BROKEN_PREFIX, DEGRADATIONS, degrade, injectStyle } from "./degrade";

const PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Shop</title>
<link href="css/styles.css" rel="stylesheet" /><link rel='stylesheet' href='/assets/main.css'>
<link rel="icon" href="favicon.ico"><style>.hero{color:red}</style></head>
<body class="bg-light"><nav aria-label="Main"><a href="/" title="Home page">Home</a></nav>
<main style="padding:2rem"><h1>Fresh tea</h1>
<img src="img/tea.png" alt="A cup of tea" srcset="img/tea@2x.png 2x" class="hero">
<picture><source srcset="img/a.webp" type="image/webp"><img src='img/a.jpg' alt=''></picture>
<div style="background-image:url('img/bg.jpg')">Banner</div>
<form><label for="email">Email address</label><input id="email" type="email" aria-labelledby="x">
<label class="check"><input type="checkbox" name="keep"> Keep me signed in</label>
<button aria-label="Send the form">Go</button></form></main>
<script src="js/app.js"></script></body></html>`;

describe("degraded twins", () => {
  it("are deterministic and differ from the page", () => {
    for (const kind of DEGRADATIONS) {
      const twin = degrade(PAGE, kind);
      expect(twin, kind).not.toBe(PAGE);
      expect(degrade(PAGE, kind), kind).toBe(twin);
    }
  });

  it("break every image, keeping the rest of each tag", () => {
    const twin = degrade(PAGE, "broken-images");
    const srcs = [...twin.matchAll(/<img\b[^>]*\bsrc="([^"]*)"/g)].map((m) => m[1]);
    expect(srcs).toHaveLength(2);
    for (const src of srcs) expect(src!.startsWith(BROKEN_PREFIX)).toBe(true);
    expect(new Set(srcs).size).toBe(2);
    expect(twin).not.toMatch(/tea@2x|img\/a\.webp|img\/bg\.jpg|img\/tea\.png|img\/a\.jpg/);
    expect(twin).toContain('alt="A cup of tea"');
    expect(twin).toContain('class="hero"');
    expect(twin).toContain("<h1>Fresh tea</h1>");
    // The inline background stays a background, now one that fails, inside an intact style attribute.
    expect(twin).toMatch(
      new RegExp(`<div style="background-image:url\\(${BROKEN_PREFIX}\\d+\\.png\\)">Banner</div>`),
    );
  });

  it("drop every style sheet, style element and inline style, and nothing else", () => {
    const twin = degrade(PAGE, "no-styles");
    expect(twin).not.toMatch(/stylesheet|<style|style=/i);
    expect(twin).toContain('<link rel="icon" href="favicon.ico">');
    expect(twin).toContain('<script src="js/app.js"></script>');
    expect(twin).toContain("Keep me signed in");
  });

  it("strip labels, alt texts and accessible names but keep the controls", () => {
    const twin = degrade(PAGE, "unlabelled");
    expect(twin).not.toMatch(/<label|\salt=|aria-label|aria-labelledby|title=/);
    expect(twin).not.toContain("Email address");
    expect(twin).not.toContain("Keep me signed in");
    expect(twin).toContain('<input id="email" type="email">');
    expect(twin).toContain('<input type="checkbox" name="keep">');
    expect(twin).toContain("<button>Go</button>");
  });

  it('replace the whole body by "Welcome" and a broken image, keeping the head', () => {
    const twin = degrade(PAGE, "welcome-only");
    const body = twin.slice(twin.indexOf("<body"));
    expect(body).toBe(
      `<body class="bg-light"><h1>Welcome</h1><img src="${BROKEN_PREFIX}welcome.png"></body></html>`,
    );
    expect(twin).toContain('<link href="css/styles.css" rel="stylesheet" />');
  });

  it("inject one strong style sheet last in the head for the looks", () => {
    const expectations: Record<string, RegExp> = {
      "low-contrast": /color:#cccccc!important;background-color:#ffffff!important/,
      "tiny-text": /font-size:7px!important/,
      "too-wide": /body:not\(#__degrade-a\):not\(#__degrade-b\)\{min-width:2000px!important\}/,
      "half-hidden": /nth-child\(2n\)[^{]*\{visibility:hidden!important\}/,
      overlap: /position:absolute!important/,
    };
    for (const [kind, css] of Object.entries(expectations)) {
      const twin = degrade(PAGE, kind as (typeof DEGRADATIONS)[number]);
      const sheet = twin.match(/<style data-degradation>([^<]*)<\/style><\/head>/);
      expect(sheet?.[1], kind).toMatch(css);
      expect(twin.replace(sheet![0], "</head>"), kind).toBe(PAGE);
    }
  });

  it("inject a style into a page without a head", () => {
    expect(injectStyle("<body><p>x</p></body>", "p{}")).toBe(
      "<body><style data-degradation>p{}</style><p>x</p></body>",
    );
    expect(injectStyle("<p>x</p>", "p{}")).toBe("<style data-degradation>p{}</style><p>x</p>");
  });
});
