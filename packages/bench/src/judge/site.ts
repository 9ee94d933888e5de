/**
 * One loopback web server per corpus package: its files as they ship, and each HTML page's degraded twins at the
 * same address with `?twin=<degradation>` (so relative links resolve alike). Nothing leaves the machine: links to
 * jsDelivr's npm mirror are pointed at the copy the package's own install holds when it has one; any other remote
 * asset fails, for the intact page and its twins alike.
 */
import { existsSync, readFileSync, statSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { extname, join, normalize, sep } from "node:path";
import { BROKEN_PREFIX, DEGRADATIONS, type Degradation, degrade } from "./degrade";

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".json": "application/json",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".jpg": "image/jpeg",
  ".jpeg": "image/jpeg",
  ".gif": "image/gif",
  ".webp": "image/webp",
  ".ico": "image/x-icon",
  ".woff": "font/woff",
  ".woff2": "font/woff2",
  ".ttf": "font/ttf",
  ".eot": "application/vnd.ms-fontobject",
  ".map": "application/json",
};

const NPM_MIRROR = "/__npm/";
const JSDELIVR =
  /https:\/\/cdn\.jsdelivr\.net\/npm\/((?:@[^/@"'\s]+\/)?[^/@"'\s]+)@[^/"'\s]+\/([^"'\s?#)]+)/g;

export interface CorpusSite {
  url: string;
  /** Remote links pointed at local copies, per page path: "from -> to". */
  rewrites: Map<string, string[]>;
  close(): Promise<void>;
}

/** Whether `child` lies inside `dir` (no `..` escapes). */
function inside(dir: string, child: string): boolean {
  const base = normalize(dir + sep);
  return normalize(child).startsWith(base);
}

/**
 * Serves `root` (the package's site folder); `/__npm/<name>/<path>` serves `<modules>/<name>/<path>`, where
 * `modules` is the package install's node_modules.
 */
export async function startCorpusSite(root: string, modules: string): Promise<CorpusSite> {
  const rewrites = new Map<string, string[]>();
  const localise = (pathname: string, html: string): string => {
    const done: string[] = [];
    const out = html.replace(JSDELIVR, (whole, name: string, rest: string) => {
      const file = join(modules, name, rest);
      if (!inside(modules, file) || !existsSync(file)) return whole;
      done.push(`${whole} -> ${NPM_MIRROR}${name}/${rest}`);
      return `${NPM_MIRROR}${name}/${rest}`;
    });
    if (done.length > 0) rewrites.set(pathname, done);
    return out;
  };

  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://local");
    const pathname = decodeURIComponent(url.pathname);
    if (pathname.startsWith(BROKEN_PREFIX)) {
      res.writeHead(404, { "content-type": "text/plain" }).end("not found");
      return;
    }
    const file = pathname.startsWith(NPM_MIRROR)
      ? join(modules, pathname.slice(NPM_MIRROR.length))
      : join(root, pathname.endsWith("/") ? `${pathname}index.html` : pathname);
    const base = pathname.startsWith(NPM_MIRROR) ? modules : root;
    if (!inside(base, file) || !existsSync(file) || !statSync(file).isFile()) {
      res.writeHead(404, { "content-type": "text/plain" }).end("not found");
      return;
    }
    const type = TYPES[extname(file).toLowerCase()] ?? "application/octet-stream";
    if (type.startsWith("text/html")) {
      let html = localise(pathname, readFileSync(file, "utf8"));
      const twin = url.searchParams.get("twin");
      if (twin) {
        if (!(DEGRADATIONS as readonly string[]).includes(twin)) {
          res.writeHead(400, { "content-type": "text/plain" }).end(`unknown twin ${twin}`);
          return;
        }
        html = degrade(html, twin as Degradation);
      }
      res.writeHead(200, { "content-type": type, "cache-control": "no-store" }).end(html);
      return;
    }
    res.writeHead(200, { "content-type": type, "cache-control": "max-age=3600" }).end(readFileSync(file));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    rewrites,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
