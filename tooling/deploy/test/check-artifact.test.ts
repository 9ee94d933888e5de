/**
 * tooling/scripts/check-artifact.mjs, the last step of `pnpm build`: it must list each module of a deployable folder
 * that would fail at run time, here in a small folder made to fail the ways dist/ once did (a named import a CommonJS
 * chunk does not export, statically and through `await import()`; a page whose module graph reads a missing file).
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const SCRIPT = resolve(dirname(fileURLToPath(import.meta.url)), "../../scripts/check-artifact.mjs");

function folder(files: Record<string, string>): string {
  const out = mkdtempSync(join(tmpdir(), "rubricon-check-artifact-"));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(out, path)), { recursive: true });
    writeFileSync(join(out, path), text);
  }
  return out;
}

function check(out: string) {
  return spawnSync(process.execPath, [SCRIPT, out], { encoding: "utf8", timeout: 60_000 });
}

const NEXT = {
  "apps/web/.next/required-server-files.json": JSON.stringify({ config: {} }),
};

describe("check-artifact", () => {
  it("passes a folder whose modules all load", () => {
    const result = check(
      folder({
        ...NEXT,
        "apps/web/server.mjs": 'import{Redis as R}from"./chunks/ioredis.mjs";new R();',
        "apps/web/worker.mjs":
          'async function f(){let{Redis}=await import("./chunks/ioredis.mjs");return Redis}',
        "apps/web/chunks/ioredis.mjs": "export class Redis{}",
        "apps/web/.next/server/app/ok/page.js":
          "module.exports={routeModule:{userland:{loaderTree:['',{},{}]}}};",
      }),
    );
    expect(result.status, result.stderr).toBe(0);
    expect(result.stdout).toContain("1 chunks, 5 entries and 1 pages load");
  });

  it("lists every module that would fail, and fails", () => {
    const result = check(
      folder({
        ...NEXT,
        "apps/web/server.mjs": 'import{Redis as R}from"./chunks/ioredis.mjs";new R();',
        "apps/web/worker.mjs":
          'async function f(){let{Redis}=await import("./chunks/ioredis.mjs");return Redis}',
        "apps/web/chunks/ioredis.mjs": "export default class Redis{}",
        "apps/web/.next/server/app/share/page.js": [
          "module.exports={routeModule:{userland:{loaderTree:['',{},{page:[",
          '() => Promise.resolve().then(() => require("./missing-browsers.json")), "app/share/page.tsx"]}]}}};',
        ].join(""),
      }),
    );
    expect(result.status).toBe(1);
    expect(result.stderr).toContain("apps/web/server.mjs: imports `Redis` from ./chunks/ioredis.mjs");
    expect(result.stderr).toContain("apps/web/worker.mjs: imports `Redis` from ./chunks/ioredis.mjs");
    expect(result.stderr).toMatch(/share\/page\.js \(page app\/share\/page\.tsx\): Cannot find module/);
  });
});
