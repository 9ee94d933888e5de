// Builds the unpacked extension (chrome://extensions → Load unpacked) and its zip:
//   dist/extension/manifest.json   Manifest V3; host permission for the configured server only
//   dist/extension/popup.{html,js} options.{html,js} style.css
//   dist/extension.zip             the same files, ready to unzip and load
// The server is RUBRICON_SERVER_URL, else http://localhost:3000; users can change it in the
// options page, which asks Chromium for permission to reach the new one.
import { copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { zipSync } from "fflate";

const PKG = join(dirname(fileURLToPath(import.meta.url)), "..");
// `--out <dir>` builds elsewhere (the tests build without touching dist/).
const outArg = process.argv.indexOf("--out");
const DIST = outArg > 0 ? resolve(process.argv[outArg + 1]) : join(PKG, "dist");
const OUT = join(DIST, "extension");
const VERSION = JSON.parse(readFileSync(join(PKG, "package.json"), "utf8")).version;

function serverOrigin(value) {
  const url = new URL(value);
  if (url.protocol !== "https:" && url.protocol !== "http:")
    throw new Error(`Not an http(s) address: ${value}`);
  return url.origin;
}
const server = serverOrigin(process.env.RUBRICON_SERVER_URL || "http://localhost:3000");

rmSync(DIST, { recursive: true, force: true });
mkdirSync(OUT, { recursive: true });

await build({
  entryPoints: { popup: join(PKG, "src/popup.ts"), options: join(PKG, "src/options.ts") },
  outdir: OUT,
  bundle: true,
  format: "iife",
  target: "chrome120",
  minify: true,
  legalComments: "none",
  alias: { "@rubricon/sdk": join(PKG, "../sdk/src/index.ts") },
  define: { __RUBRICON_SERVER__: JSON.stringify(server) },
  logLevel: "warning",
});
for (const name of ["popup.html", "options.html", "style.css"])
  copyFileSync(join(PKG, "static", name), join(OUT, name));

const manifest = {
  manifest_version: 3,
  name: "Rubricon",
  version: VERSION,
  description:
    "Add the page or a screenshot of any tab to a Rubricon evaluation, run autousers and read their scores.",
  action: { default_title: "Rubricon", default_popup: "popup.html" },
  options_ui: { page: "options.html", open_in_tab: false },
  // activeTab: the tab's address and a screenshot of it, only when the user opens the popup on that tab.
  permissions: ["activeTab", "storage"],
  host_permissions: [`${server}/*`],
  // Another server set in the options page is asked for at that moment.
  optional_host_permissions: ["https://*/*", "http://*/*"],
  content_security_policy: { extension_pages: "script-src 'self'; object-src 'none'" },
  minimum_chrome_version: "120",
};
writeFileSync(join(OUT, "manifest.json"), `${JSON.stringify(manifest, null, 2)}\n`);

const names = ["manifest.json", "popup.html", "popup.js", "options.html", "options.js", "style.css"];
const zip = zipSync(
  Object.fromEntries(names.map((n) => [`rubricon-extension/${n}`, readFileSync(join(OUT, n))])),
  {
    level: 9,
    mtime: new Date("2026-01-01T00:00:00Z"),
  },
);
writeFileSync(join(DIST, "extension.zip"), zip);
process.stdout.write(`extension: dist/extension.zip for ${server} (${zip.byteLength} bytes)\n`);
