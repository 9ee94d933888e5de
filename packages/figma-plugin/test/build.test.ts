import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { unzipSync } from "fflate";
import { beforeAll, describe, expect, it } from "vitest";

const PKG = fileURLToPath(new URL("..", import.meta.url));
const SERVER = "https://rubricon.example.test:8443";
let out: string;

beforeAll(() => {
  out = mkdtempSync(join(tmpdir(), "rubricon-figma-build-"));
  execFileSync(process.execPath, [join(PKG, "scripts/build.mjs"), "--out", out], {
    env: { ...process.env, RUBRICON_SERVER_URL: `${SERVER}/some/path` },
    stdio: "pipe",
  });
}, 120_000);

describe("the built plugin", () => {
  it("has a manifest the editor imports, allowed to reach only the configured server", () => {
    const manifest = JSON.parse(readFileSync(join(out, "plugin/manifest.json"), "utf8"));
    expect(manifest).toMatchObject({
      name: "Rubricon",
      api: "1.0.0",
      main: "code.js",
      ui: "ui.html",
      editorType: ["figma"],
    });
    expect(manifest.networkAccess.allowedDomains).toEqual([SERVER]);
    expect(manifest.networkAccess).not.toHaveProperty("devAllowedDomains");
  });

  it("bundles everything: no remote code, no eval, and no address but the server's", () => {
    const code = readFileSync(join(out, "plugin/code.js"), "utf8");
    const html = readFileSync(join(out, "plugin/ui.html"), "utf8");
    for (const text of [code, html]) {
      expect(text).not.toMatch(/\beval\s*\(|new Function\s*\(|importScripts|\bimport\s*\(/);
      expect(text).not.toMatch(/<script[^>]+src=|<link[^>]+href=/i);
    }
    expect(code).toContain(JSON.stringify(SERVER));
    const urls = new Set([...`${code}\n${html}`.matchAll(/https?:\/\/[^"'`\s)<]+/g)].map((m) => m[0]));
    // The SDK's default address stays in its code but is never used: the plugin always passes the server's.
    urls.delete("http://localhost:3000");
    urls.delete("http://localhost:3000/api/v1");
    expect([...urls]).toEqual([SERVER]);
    // The window's script is inlined; the editor loads ui.html as a string.
    expect(html).toContain("pluginMessage");
    expect(html).not.toContain("/*UI_SCRIPT*/");
  });

  it("packs the same three files into figma-plugin.zip", () => {
    const files = unzipSync(new Uint8Array(readFileSync(join(out, "figma-plugin.zip"))));
    expect(Object.keys(files).sort()).toEqual([
      "rubricon-figma-plugin/code.js",
      "rubricon-figma-plugin/manifest.json",
      "rubricon-figma-plugin/ui.html",
    ]);
    for (const name of ["code.js", "manifest.json", "ui.html"]) {
      expect(new TextDecoder().decode(files[`rubricon-figma-plugin/${name}`])).toBe(
        readFileSync(join(out, "plugin", name), "utf8"),
      );
    }
  });
});
