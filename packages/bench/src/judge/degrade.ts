/**
 * Degraded twins of a real page for `pnpm bench judge`: each transform takes the page's HTML and answers a copy that
 * is clearly worse for any visitor, by rewriting the markup and, where a look is changed, injecting one style sheet.
 * Pure and deterministic: the same HTML always gives the same twin.
 */

export const DEGRADATIONS = [
  "broken-images",
  "low-contrast",
  "tiny-text",
  "no-styles",
  "too-wide",
  "unlabelled",
  "welcome-only",
  "half-hidden",
  "overlap",
] as const;
export type Degradation = (typeof DEGRADATIONS)[number];

/** What each twin does to the page, for the bench's table and docs. */
export const DEGRADATION_LABELS: Record<Degradation, string> = {
  "broken-images": "every image broken",
  "low-contrast": "text light grey (#ccc) on white",
  "tiny-text": "all text at 7 px",
  "no-styles": "no stylesheets at all",
  "too-wide": "page wider than the screen (2000 px)",
  unlabelled: "labels, alt texts and aria-labels stripped",
  "welcome-only": 'body replaced by "Welcome" and a broken image',
  "half-hidden": "every second element hidden (holes in the layout)",
  overlap: "blocks stacked on top of each other",
};

/** Where broken images point: the bench's server answers 404 under this prefix. */
export const BROKEN_PREFIX = "/__broken/";

/**
 * A selector prefix with the specificity of two ids, so an injected `!important` rule wins over the template's own
 * `!important` utility classes (which have one class's specificity).
 */
const STRONG = ":not(#__degrade-a):not(#__degrade-b)";

const ATTR_VALUE = String.raw`(?:"[^"]*"|'[^']*'|[^\s"'>]+)`;

function attrPattern(names: string): RegExp {
  return new RegExp(String.raw`\s(?:${names})(?:\s*=\s*${ATTR_VALUE})?(?=[\s/>])`, "gi");
}

/** Rewrites the attributes of every opening tag named `tag` with `edit`. */
function editTags(html: string, tag: string, edit: (attrs: string) => string): string {
  const open = new RegExp(String.raw`<(${tag})(\s[^>]*)?>`, "gi");
  return html.replace(open, (_m, name: string, attrs: string | undefined) => `<${name}${edit(attrs ?? "")}>`);
}

/** Adds a style sheet after everything in the head (or at the start when there is no head). */
export function injectStyle(html: string, css: string): string {
  const sheet = `<style data-degradation>${css}</style>`;
  if (/<\/head>/i.test(html)) return html.replace(/<\/head>/i, `${sheet}</head>`);
  if (/<body[^>]*>/i.test(html)) return html.replace(/<body[^>]*>/i, (m) => `${m}${sheet}`);
  return `${sheet}${html}`;
}

function breakImages(html: string): string {
  let n = 0;
  const broken = () => `${BROKEN_PREFIX}${++n}.png`;
  let out = editTags(html, "img", (attrs) => {
    const kept = attrs.replace(attrPattern("src|srcset|data-src|data-srcset|loading"), "");
    return ` src="${broken()}"${kept}`;
  });
  out = editTags(out, "source", (attrs) => attrs.replace(attrPattern("srcset|src"), ` srcset="${broken()}"`));
  // SVG <image> and CSS backgrounds given inline are images too.
  out = editTags(out, "image", (attrs) =>
    attrs.replace(attrPattern("href|xlink:href"), ` href="${broken()}"`),
  );
  // Unquoted: a quote here would end a `style="…"` attribute and drop the background instead of breaking it.
  return out.replace(
    /url\((['"]?)(?!data:)[^)'"]+\.(?:png|jpe?g|gif|webp|svg|avif)\1\)/gi,
    () => `url(${broken()})`,
  );
}

function stripStyles(html: string): string {
  return html
    .replace(/<link\b[^>]*\brel\s*=\s*["']?[^"'>]*stylesheet[^>]*>/gi, "")
    .replace(/<style\b[\s\S]*?<\/style>/gi, "")
    .replace(attrPattern("style"), "");
}

/** The words inside a label go; the controls a label wraps stay, so only the names are lost. */
function stripLabels(html: string): string {
  const out = html.replace(/<label\b[^>]*>([\s\S]*?)<\/label>/gi, (_m, inner: string) =>
    /<(input|select|textarea|button)\b/i.test(inner)
      ? inner.replace(/>[^<]+</g, "><").replace(/^[^<]+|[^>]+$/g, "")
      : "",
  );
  return out.replace(attrPattern("alt|aria-label|aria-labelledby|aria-describedby|title"), "");
}

function welcomeOnly(html: string): string {
  const body = `<h1>Welcome</h1><img src="${BROKEN_PREFIX}welcome.png">`;
  if (!/<body[^>]*>/i.test(html)) return `<!doctype html><html><body>${body}</body></html>`;
  return html.replace(/(<body[^>]*>)[\s\S]*?(<\/body>|$)/i, (_m, open: string) => `${open}${body}</body>`);
}

/** Every degraded twin of `html`. */
export function degrade(html: string, kind: Degradation): string {
  switch (kind) {
    case "broken-images":
      return breakImages(html);
    case "low-contrast":
      return injectStyle(
        html,
        `html${STRONG},body${STRONG},body *${STRONG}{color:#cccccc!important;background-color:#ffffff!important;` +
          `background-image:none!important;border-color:#eeeeee!important;text-shadow:none!important;` +
          `-webkit-text-fill-color:#cccccc!important;box-shadow:none!important}`,
      );
    case "tiny-text":
      return injectStyle(
        html,
        `html${STRONG},body${STRONG},body *${STRONG}{font-size:7px!important;line-height:1.2!important}`,
      );
    case "no-styles":
      return stripStyles(html);
    case "too-wide":
      return injectStyle(html, `body${STRONG}{min-width:2000px!important}`);
    case "unlabelled":
      return stripLabels(html);
    case "welcome-only":
      return welcomeOnly(html);
    case "half-hidden":
      return injectStyle(html, `body *:nth-child(2n)${STRONG}{visibility:hidden!important}`);
    case "overlap":
      return injectStyle(
        html,
        `body > *${STRONG},body > * > *${STRONG},body > * > * > *${STRONG}{position:absolute!important;` +
          `top:0!important;left:0!important;margin:0!important}`,
      );
  }
}
