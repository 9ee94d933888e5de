/** What a page says about itself in Open Graph, Twitter card and plain HTML meta tags. */
export interface PageMeta {
  title: string | null;
  description: string | null;
  image: string | null;
  siteName: string | null;
}

const ENTITIES: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'", nbsp: " " };

function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, name: string) => {
    if (name[0] === "#") {
      const code =
        name[1] === "x" || name[1] === "X" ? Number.parseInt(name.slice(2), 16) : Number(name.slice(1));
      return Number.isFinite(code) && code > 0 && code < 0x110000 ? String.fromCodePoint(code) : whole;
    }
    return ENTITIES[name.toLowerCase()] ?? whole;
  });
}

function attributes(tag: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of tag.matchAll(/([a-zA-Z:_-]+)\s*=\s*("([^"]*)"|'([^']*)'|([^\s"'>]+))/g)) {
    out[m[1]!.toLowerCase()] = decodeEntities(m[3] ?? m[4] ?? m[5] ?? "");
  }
  return out;
}

const clean = (value: string | undefined, max: number): string | null => {
  const text = value?.replace(/\s+/g, " ").trim();
  return text ? text.slice(0, max) : null;
};

/** Reads the page's `<head>` meta; a relative image is resolved against the page's final URL. */
export function readPageMeta(html: string, pageUrl: string): PageMeta {
  const head = html.slice(0, html.search(/<body[\s>]/i) >>> 0 || html.length);
  const meta = new Map<string, string>();
  for (const m of head.matchAll(/<meta\b[^>]*>/gi)) {
    const attrs = attributes(m[0]);
    const name = (attrs.property ?? attrs.name ?? "").toLowerCase();
    if (name && attrs.content !== undefined && !meta.has(name)) meta.set(name, attrs.content);
  }
  const title = /<title\b[^>]*>([\s\S]*?)<\/title>/i.exec(head)?.[1];
  const pick = (...names: string[]) => names.map((n) => meta.get(n)).find((v) => v?.trim());
  let image = clean(pick("og:image", "og:image:url", "og:image:secure_url", "twitter:image"), 2048);
  if (image) {
    try {
      const resolved = new URL(image, pageUrl);
      image = resolved.protocol === "http:" || resolved.protocol === "https:" ? resolved.toString() : null;
    } catch {
      image = null;
    }
  }
  return {
    title: clean(pick("og:title", "twitter:title") ?? (title ? decodeEntities(title) : undefined), 300),
    description: clean(pick("og:description", "twitter:description", "description"), 1000),
    image,
    siteName: clean(pick("og:site_name", "application-name"), 200),
  };
}
