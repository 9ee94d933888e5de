import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { expect, test } from "@playwright/test";
import { startCliLogin } from "./cli-login";
import { signUp } from "./helpers";

const CLI_DIR = fileURLToPath(new URL("../../../packages/cli", import.meta.url));

/** The environment without pnpm's `npm_*` settings, which would steer `npm install`, or a stray RUBRICON_*. */
function cleanEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, npm_config_update_notifier: "false" };
  for (const key of Object.keys(env)) {
    if (/^npm_(?!config_update_notifier)/i.test(key) || key === "INIT_CWD" || key.startsWith("RUBRICON_"))
      delete env[key];
  }
  return { ...env, ...extra };
}

async function sh(command: string, args: string[], cwd: string, env = cleanEnv({})) {
  return promisify(execFile)(command, args, { cwd, env, encoding: "utf8", timeout: 240_000 });
}

/** `@rubricon/cli` as users get it: built, packed, and installed from the tarball into an empty folder. */
async function installPackedCli(): Promise<string> {
  const work = mkdtempSync(join(tmpdir(), "rubricon-e2e-cli-"));
  await sh(join(CLI_DIR, "node_modules", ".bin", "tsup"), [], CLI_DIR);
  await sh("pnpm", ["pack", "--pack-destination", work], CLI_DIR);
  const version = JSON.parse(readFileSync(join(CLI_DIR, "package.json"), "utf8")).version as string;
  const app = join(work, "app");
  mkdirSync(app);
  writeFileSync(join(app, "package.json"), JSON.stringify({ name: "cli-e2e", private: true }));
  await sh(
    "npm",
    ["install", "--offline", "--no-audit", "--no-fund", join(work, `rubricon-cli-${version}.tgz`)],
    app,
  );
  return join(app, "node_modules", ".bin", "rubricon");
}

test("rubricon login: the user allows the CLI on the dashboard's consent page, and the CLI then calls the API", async ({
  page,
  baseURL,
}) => {
  test.setTimeout(300_000);
  const bin = await installPackedCli();
  const config = mkdtempSync(join(tmpdir(), "rubricon-e2e-cli-config-"));
  const env = cleanEnv({ RUBRICON_BASE_URL: baseURL!, RUBRICON_CONFIG_DIR: config });
  await signUp(page);

  const { address, exited, stdout } = await startCliLogin(bin, {
    options: ["--scopes", "evaluations:read evaluations:write"],
    env,
  });

  // The browser's part, on the real consent page; the redirect lands on the CLI's own loopback listener.
  await page.goto(address);
  await expect(page).toHaveURL(/\/oauth\/consent\/[\w-]+$/);
  await expect(page.getByRole("heading", { name: "Authorize Rubricon CLI" })).toBeVisible();
  await page.getByRole("button", { name: "Allow" }).click();
  await expect(page.getByText("Signed in")).toBeVisible();
  expect(await exited).toBe(0);
  expect(stdout()).toMatch(
    /^Signed in to http:\/\/127\.0\.0\.1:\d+ as user \S+ on team \S+ \(profile default\)\.\n$/,
  );
  expect(statSync(join(config, "config.json")).mode & 0o777).toBe(0o600);

  // The stored sign-in works for the API, with the scopes the user allowed.
  const run = async (args: string[]) => {
    const { stdout: out } = await sh(bin, [...args, "--json"], config, env);
    return JSON.parse(out);
  };
  expect(await run(["whoami"])).toMatchObject({
    principal: "oauth",
    scopes: ["evaluations:read", "evaluations:write"],
  });
  const created = await run([
    "evaluations",
    "create",
    "--name",
    "From the CLI",
    "--type",
    "SSE",
    "--url",
    "https://example.com/a",
  ]);
  expect(created).toMatchObject({ object: "evaluation", name: "From the CLI" });
  const listed = await run(["evaluations", "list"]);
  expect(listed.data.map((e: { id: string }) => e.id)).toContain(created.id);

  // The dashboard shows the evaluation the CLI made: one account, one team.
  await page.goto("/evaluations");
  await expect(page.getByText("From the CLI")).toBeVisible();
});
