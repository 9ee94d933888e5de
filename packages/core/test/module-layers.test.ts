import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";

const CORE = join(dirname(fileURLToPath(import.meta.url)), "..");
const API = join(CORE, "../api");
const SCRIPT = join(CORE, "../../tooling/scripts/module-layers.mjs");

/** The layer list the lint task declares, so this test and lint cannot disagree about the order. */
function declaredLayers(): string[] {
  const lint: string = JSON.parse(readFileSync(join(CORE, "package.json"), "utf8")).scripts.lint;
  const args = lint.match(/module-layers\.mjs src ((?:[a-z-]+ ?)+)/);
  if (!args?.[1]) throw new Error("core's lint task does not run module-layers.mjs on src");
  return args[1].trim().split(" ");
}

/** The folder order the api package's lint task declares (`--direction-only`: its folders have no faces yet). */
function apiDeclaredLayers(): string[] {
  const lint: string = JSON.parse(readFileSync(join(API, "package.json"), "utf8")).scripts.lint;
  const args = lint.match(/module-layers\.mjs --direction-only src ((?:[a-z-]+ ?)+)/);
  if (!args?.[1])
    throw new Error("the api's lint task does not run module-layers.mjs --direction-only on src");
  return args[1].trim().split(" ");
}

function check(dir: string, layers: string[], flags: string[] = []) {
  const run = spawnSync(process.execPath, [SCRIPT, ...flags, dir, ...layers], { encoding: "utf8", cwd: dir });
  return { status: run.status, errors: run.stderr };
}

let tree: string | undefined;
afterEach(() => {
  if (tree) rmSync(tree, { recursive: true, force: true });
  tree = undefined;
});

/** A small source tree: `files` maps paths to their text. */
function fixture(files: Record<string, string>): string {
  tree = mkdtempSync(join(tmpdir(), "module-layers-"));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(tree, path)), { recursive: true });
    writeFileSync(join(tree, path), text);
  }
  return tree;
}

const CLEAN = {
  "index.ts": 'export * from "./low";\nexport * from "./high";\n',
  "low/index.ts": 'export * from "./thing";\n',
  "low/thing.ts": "export const thing = 1;\n",
  "high/index.ts": 'export * from "./user";\n',
  "high/user.ts":
    'import { thing } from "../low";\nimport { helper } from "./helper";\nexport const user = thing + helper;\n',
  "high/helper.ts": "export const helper = 2;\n",
};

// Each case starts node and TypeScript's scanner: seconds on a busy machine.
describe("module-layers.mjs", { timeout: 120_000 }, () => {
  it("passes core's own modules in the layer order its lint task declares", () => {
    const layers = declaredLayers();
    expect(layers).toEqual(["kernel", "identity", "platform", "catalog", "evaluation", "automation"]);
    const run = check(join(CORE, "src"), layers);
    expect(run.errors).toBe("");
    expect(run.status).toBe(0);
  });

  it("passes a tree whose modules import lower modules through their index", () => {
    expect(check(fixture(CLEAN), ["low", "high"])).toEqual({ status: 0, errors: "" });
  });

  it("fails an import of another module's internals", () => {
    const dir = fixture({
      ...CLEAN,
      "high/user.ts": 'import { thing } from "../low/thing";\nexport const user = thing;\n',
    });
    const run = check(dir, ["low", "high"]);
    expect(run.status).toBe(1);
    expect(run.errors).toContain('high/user.ts: imports "../low/thing", inside module "low"');
  });

  it("fails an import up the layers, and the circle it closes", () => {
    const dir = fixture({
      ...CLEAN,
      "low/thing.ts": 'import type { user } from "../high";\nexport const thing = 1;\n',
    });
    const run = check(dir, ["low", "high"]);
    expect(run.status).toBe(1);
    expect(run.errors).toContain('low/thing.ts: imports "../high" of module "high", a layer above "low"');
    expect(run.errors).toMatch(
      /modules import each other in a circle: (low -> high -> low|high -> low -> high)/,
    );
  });

  it("fails a circle between modules even when the layer list would allow one direction", () => {
    const dir = fixture({
      ...CLEAN,
      "low/thing.ts": 'import type { user } from "../high";\nexport const thing = 1;\n',
    });
    const run = check(dir, ["high", "low"]);
    expect(run.status).toBe(1);
    expect(run.errors).toContain("modules import each other in a circle");
  });

  it("fails a module that is in no layer", () => {
    const dir = fixture({ ...CLEAN, "stray/index.ts": "export const stray = 1;\n" });
    const run = check(dir, ["low", "high"]);
    expect(run.status).toBe(1);
    expect(run.errors).toContain('module "stray" is in no layer');
  });

  it("holds the api's folders to the order its lint task declares, request types at the bottom", () => {
    const layers = apiDeclaredLayers();
    expect(layers.indexOf("request")).toBeLessThan(layers.indexOf("limits"));
    expect(layers.indexOf("limits")).toBeLessThan(layers.indexOf("trpc"));
    expect(layers.indexOf("trpc")).toBeLessThan(layers.indexOf("http"));
    const run = check(join(API, "src"), layers, ["--direction-only"]);
    expect(run.errors).toBe("");
    expect(run.status).toBe(0);
  });

  it("with --direction-only, leaves faces and unlisted folders alone but fails an import upward", () => {
    const inside = {
      ...CLEAN,
      "high/user.ts": 'import { thing } from "../low/thing";\nexport const user = thing;\n',
      "stray/index.ts": 'import { user } from "../high/user";\nexport const stray = user;\n',
    };
    const dir = fixture(inside);
    expect(check(dir, ["low", "high"], ["--direction-only"])).toEqual({ status: 0, errors: "" });
    writeFileSync(
      join(dir, "low/thing.ts"),
      'import type { user } from "../high/user";\nexport const thing = 1;\n',
    );
    const run = check(dir, ["low", "high"], ["--direction-only"]);
    expect(run.status).toBe(1);
    expect(run.errors).toContain(
      'low/thing.ts: imports "../high/user" of module "high", a layer above "low"',
    );
  });
});
