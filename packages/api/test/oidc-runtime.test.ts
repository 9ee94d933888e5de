import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

/**
 * oidc-provider 9 warns "Unsupported runtime" on every start under Node 20, which this project supports (and CI
 * runs). A patch (patches/oidc-provider@9.13.3.patch) lowers its floor to Node 20 LTS; older runtimes still warn.
 */
describe("the OAuth provider on the supported runtime", () => {
  it("loads without an Unsupported runtime warning", async () => {
    const { stdout, stderr } = await promisify(execFile)(
      process.execPath,
      ["--input-type=module", "-e", "await import('oidc-provider'); console.log(process.release.lts)"],
      { cwd: new URL("..", import.meta.url), encoding: "utf8" },
    );
    expect(stdout.trim()).toMatch(/^[A-Z][a-z]+$/);
    expect(stderr).not.toContain("Unsupported runtime");
  });
});
