// `pnpm --filter @rubricon/postgres-patch generate`: writes patches/postgres@<version>.patch from the change in
// src/change.ts and driver/. Then `pnpm install` applies it (and records its new hash in the lockfile).
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { relative } from "node:path";
import { PATCH_FILE, patchText } from "./patch";

const text = patchText();
const before = existsSync(PATCH_FILE) ? readFileSync(PATCH_FILE, "utf8") : null;
const name = relative(process.cwd(), PATCH_FILE);
if (before === text) {
  process.stdout.write(`${name} is current\n`);
} else {
  writeFileSync(PATCH_FILE, text);
  process.stdout.write(
    `wrote ${name} (${text.split("\n").length} lines); run \`pnpm install\` to apply it\n`,
  );
}
