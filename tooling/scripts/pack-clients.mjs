// A step of `pnpm build`, after artifact.mjs (which empties dist/): puts the design-tool plugin and the browser extension, each zipped by its own
// package's build, beside the deployable build in dist/ (dist/figma-plugin.zip, dist/extension.zip).
// Both are built for RUBRICON_SERVER_URL (default http://localhost:3000); see docs/plugin.md and docs/extension.md.
import { copyFileSync, existsSync, mkdirSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const outArg = process.argv.indexOf("--out");
const OUT = resolve(outArg > 0 ? process.argv[outArg + 1] : join(ROOT, "dist"));

const ZIPS = [
  ["packages/figma-plugin/dist/figma-plugin.zip", "figma-plugin.zip"],
  ["packages/extension/dist/extension.zip", "extension.zip"],
];

mkdirSync(OUT, { recursive: true });
for (const [from, to] of ZIPS) {
  const source = join(ROOT, from);
  if (!existsSync(source))
    throw new Error(`${from} is missing: run the package builds first (turbo run build).`);
  copyFileSync(source, join(OUT, to));
  process.stdout.write(`pack-clients: ${join(OUT, to)}\n`);
}
