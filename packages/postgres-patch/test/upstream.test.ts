import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { changeDriver, UPSTREAM } from "../src/change";
import { installedDriver, PATCH_FILE, patchText, upstreamFiles } from "../src/patch";

/*
 * The change is made for one published version of postgres.js. When the workspace moves to another, these fail
 * (pnpm also refuses a patch that no longer applies): the change is then remade against the new files, or dropped
 * if upstream took it.
 */
describe("postgres.js as the change was made for it", () => {
  it("is the pinned version", () => {
    expect(installedDriver().version).toBe(UPSTREAM.version);
    const manifest = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as {
      dependencies: Record<string, string>;
    };
    expect(manifest.dependencies.postgres).toBe(UPSTREAM.version);
  });

  it("has, under the applied patch, the upstream files the change was made for", () => {
    // Throws when a file does not hash as published (another version, or a patch that is not the committed one).
    const files = upstreamFiles();
    expect([...files.keys()].sort()).toEqual(Object.keys(UPSTREAM.files).sort());
  });

  it("carries the committed patch, and that patch is what the change generates", () => {
    expect(readFileSync(PATCH_FILE, "utf8")).toBe(patchText());
    const changed = changeDriver(upstreamFiles());
    const { dir } = installedDriver();
    for (const [path, text] of changed) expect(readFileSync(join(dir, path), "utf8"), path).toBe(text);
  });

  it("refuses to change a file whose text moved: the diff must apply to each build as it stands", () => {
    const files = upstreamFiles();
    const moved = new Map(files);
    moved.set("src/index.js", files.get("src/index.js")!.replace("await sql`commit`", "await sql`commit;`"));
    expect(() => changeDriver(moved)).toThrow(/does not apply to src:/);
  });
});
