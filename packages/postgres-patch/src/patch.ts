import { createHash } from "node:crypto";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { changeDriver, UPSTREAM } from "./change";
import { git } from "./git";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../../..");

/** Where pnpm reads the patch from (`patchedDependencies` in pnpm-workspace.yaml). */
export const PATCH_FILE = join(ROOT, "patches", `postgres@${UPSTREAM.version}.patch`);

/** The installed driver's folder and version (as this workspace resolves `postgres`). */
export function installedDriver(): { dir: string; version: string } {
  const require = createRequire(import.meta.url);
  // `require` resolves to the CommonJS build, cjs/src/index.js.
  const dir = resolve(dirname(require.resolve("postgres")), "../..");
  const { version } = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as { version: string };
  return { dir, version };
}

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

function readAll(dir: string): Map<string, string> {
  return new Map(Object.keys(UPSTREAM.files).map((path) => [path, readFileSync(join(dir, path), "utf8")]));
}

function writeAll(dir: string, files: ReadonlyMap<string, string>): void {
  for (const [path, text] of files) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
}

/**
 * The files the change touches as upstream publishes them. The installed copies carry whatever patch pnpm applied
 * (the committed one), so that patch is taken back out; each result must hash as `UPSTREAM` says, which fails once
 * the driver is another version than the change was made for.
 */
export function upstreamFiles(dir = installedDriver().dir, patch = PATCH_FILE): Map<string, string> {
  let files = readAll(dir);
  const pristine = () => [...files].every(([path, text]) => sha256(text) === UPSTREAM.files[path]);
  if (!pristine() && existsSync(patch)) {
    const work = mkdtempSync(join(tmpdir(), "postgres-upstream-"));
    try {
      // The whole package: a patch may touch more files than the change does now.
      cpSync(dir, work, { recursive: true, dereference: true });
      const reversed = git(work, ["apply", "--reverse", patch]);
      if (reversed.status !== 0)
        throw new Error(`cannot take ${patch} out of the installed driver: ${reversed.stderr}`);
      files = readAll(work);
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  }
  for (const [path, text] of files) {
    if (sha256(text) !== UPSTREAM.files[path]) {
      throw new Error(
        `postgres ${installedDriver().version}: ${path} is not the file of postgres ${UPSTREAM.version} the change ` +
          "was made for; remake the change against this version (packages/postgres-patch/README.md)",
      );
    }
  }
  return files;
}

/** The patch pnpm applies: a git diff of each changed file, from upstream's text to the changed one. */
export function patchText(upstream: ReadonlyMap<string, string> = upstreamFiles()): string {
  const work = mkdtempSync(join(tmpdir(), "postgres-patch-"));
  try {
    writeAll(join(work, "a"), upstream);
    writeAll(join(work, "b"), changeDriver(upstream));
    const diff = git(work, [
      "diff",
      "--no-index",
      "--no-color",
      "--no-ext-diff",
      "--full-index",
      "--no-prefix",
      "a",
      "b",
    ]);
    // `git diff --no-index` answers 1 when the trees differ, as they must.
    if (diff.status !== 1) throw new Error(`git diff failed (${diff.status}): ${diff.stderr}`);
    return diff.stdout;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
