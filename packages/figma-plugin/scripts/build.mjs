// Builds the plugin as the editor imports it (Plugins → Development → Import plugin from manifest):
//   dist/plugin/manifest.json   network access for the configured server only
//   dist/plugin/code.js         the sandbox code, one file, no remote code
//   dist/plugin/ui.html         the window, its script inlined (the editor loads it as a string)
//   dist/figma-plugin.zip       the three files, ready to unzip and import
// The server is RUBRICON_SERVER_URL, else http://localhost:3000.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { zipSync } from "fflate";

const PKG = join(dirname(fileURLToPath(import.meta.url)), "..");
// `--out <dir>` builds elsewhere (the tests build for another server without touching dist/).
const outArg = process.argv.indexOf("--out");
const DIST = outArg > 0 ? resolve(process.argv[outArg + 1]) : join(PKG, "dist");
const OUT = join(DIST, "plugin");
const SDK = join(PKG, "../sdk/src/index.ts");

function serverOrigin(value) {
  const url = new URL(value);
  if (url.protocol !== "https:" && url.protocol !== "http:")
    throw new Error(`Not an http(s) address: ${value}`);
  return url.origin;
}

const server = serverOrigin(process.env.RUBRICON_SERVER_URL || "http://localhost:3000");

rmSync(DIST, { recursive: true, force: true });
mkdirSync(OUT, { recursive: true });

const common = {
  bundle: true,
  write: false,
  format: "iife",
  minify: true,
  legalComments: "none",
  alias: { "@rubricon/sdk": SDK },
  logLevel: "warning",
};

// The editor's sandbox runs ES2017 reliably; newer syntax (class private fields, `??=`) is lowered.
const code = await build({
  ...common,
  entryPoints: [join(PKG, "src/code.ts")],
  target: "es2017",
  define: { __RUBRICON_SERVER__: JSON.stringify(server) },
});
const ui = await build({ ...common, entryPoints: [join(PKG, "src/ui/ui.ts")], target: "es2020" });

const script = ui.outputFiles[0].text.replace(/<\/script/gi, "<\\/script");
const html = readFileSync(join(PKG, "src/ui/ui.html"), "utf8").replace("/*UI_SCRIPT*/", () => script);

const manifest = {
  name: "Rubricon",
  id: "rubricon-design-evaluations",
  api: "1.0.0",
  editorType: ["figma"],
  documentAccess: "dynamic-page",
  main: "code.js",
  ui: "ui.html",
  networkAccess: {
    allowedDomains: [server],
    reasoning: "Uploads the frames you evaluate to your team's Rubricon server and reads the results.",
  },
};

const files = {
  "manifest.json": `${JSON.stringify(manifest, null, 2)}\n`,
  "code.js": code.outputFiles[0].text,
  "ui.html": html,
};
for (const [name, text] of Object.entries(files)) writeFileSync(join(OUT, name), text);

const zip = zipSync(
  Object.fromEntries(
    Object.entries(files).map(([name, text]) => [
      `rubricon-figma-plugin/${name}`,
      new TextEncoder().encode(text),
    ]),
  ),
  { level: 9, mtime: new Date("2026-01-01T00:00:00Z") },
);
writeFileSync(join(DIST, "figma-plugin.zip"), zip);
process.stdout.write(`figma-plugin: dist/figma-plugin.zip for ${server} (${zip.byteLength} bytes)\n`);
