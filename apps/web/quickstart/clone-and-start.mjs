// The quick start as a newcomer runs it (playwright.quickstart.config.ts `webServer`): a clean clone of this
// repository's HEAD, then the README's `npm run quickstart` in it, with nothing set but what the README names.
//
// The clone shares this checkout's Turborepo cache (`TURBO_CACHE_DIR`): its build then replays the outputs of
// the identical inputs this checkout built (CI builds right before), so the test spends its minutes on the
// product, not on a second `next build`. The install, the assembly of dist/ and the start run in the clone.
import { execFileSync, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../../..");
const PORT = process.env.QUICKSTART_PORT ?? "3108";
// Where the clone goes: set by playwright.quickstart.config.ts, so the spec finds the CLI the clone built.
const clone =
  process.env.QUICKSTART_CLONE ?? join(mkdtempSync(join(tmpdir(), "rubricon-quickstart-")), "rubricon");
const work = dirname(clone);

mkdirSync(work, { recursive: true });
execFileSync("git", ["clone", "--quiet", "--no-hardlinks", ROOT, clone], { stdio: "inherit" });
process.stdout.write(
  `quickstart: cloned ${execFileSync("git", ["-C", clone, "rev-parse", "--short", "HEAD"])}`,
);

// A newcomer's shell: no database, Redis or settings of ours; only the options the README and docs name.
const env = {
  PATH: process.env.PATH,
  HOME: process.env.HOME,
  CI: process.env.CI ?? "",
  TURBO_CACHE_DIR: join(ROOT, ".turbo/cache"),
  npm_config_update_notifier: "false",
  PORT,
  CHROMIUM_PATH: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
  // The smoke test's webhook receiver and autouser page live on loopback (docs/configuration.md).
  WEBHOOKS_ENABLED: "true",
  WEBHOOKS_ALLOW_PRIVATE_URLS: "true",
  AUTOUSER_ALLOW_PRIVATE_URLS: "true",
};
const child = spawn("npm", ["run", "quickstart"], { cwd: clone, env, stdio: "inherit" });
let stopping = false;
const stop = () => {
  if (stopping) return;
  stopping = true;
  child.kill("SIGTERM");
};
process.on("SIGTERM", stop);
process.on("SIGINT", stop);
child.once("exit", (code) => {
  rmSync(work, { recursive: true, force: true });
  process.exit(stopping ? 0 : (code ?? 1));
});
