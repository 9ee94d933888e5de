import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { unzipSync } from "fflate";
import { beforeAll, describe, expect, it } from "vitest";

const PKG = fileURLToPath(new URL("..", import.meta.url));
const SERVER = "https://rubricon.example.test";
const FILES = ["manifest.json", "options.html", "options.js", "popup.html", "popup.js", "style.css"];
let out: string;

beforeAll(() => {
  out = mkdtempSync(join(tmpdir(), "rubricon-extension-build-"));
  execFileSync(process.execPath, [join(PKG, "scripts/build.mjs"), "--out", out], {
    env: { ...process.env, RUBRICON_SERVER_URL: `${SERVER}/dashboard` },
    stdio: "pipe",
  });
}, 120_000);

describe("the built extension", () => {
  it("is Manifest V3 with host permission for the configured server only", () => {
    const manifest = JSON.parse(readFileSync(join(out, "extension/manifest.json"), "utf8"));
    expect(manifest).toMatchObject({
      manifest_version: 3,
      name: "Rubricon",
      action: { default_popup: "popup.html" },
      options_ui: { page: "options.html" },
    });
    expect(manifest.permissions).toEqual(["activeTab", "storage"]);
    expect(manifest.host_permissions).toEqual([`${SERVER}/*`]);
    expect(manifest.content_security_policy.extension_pages).toBe("script-src 'self'; object-src 'none'");
    expect(manifest).not.toHaveProperty("background");
    expect(manifest).not.toHaveProperty("content_scripts");
  });

  it("loads only its own scripts and names no address but the server's", () => {
    const popup = readFileSync(join(out, "extension/popup.js"), "utf8");
    expect(popup).toContain(JSON.stringify(SERVER));
    for (const name of ["popup.js", "options.js"]) {
      const code = readFileSync(join(out, "extension", name), "utf8");
      expect(code).not.toMatch(/\beval\s*\(|new Function\s*\(|importScripts|\bimport\s*\(/);
      const urls = new Set([...code.matchAll(/https?:\/\/[^"'`\s)<]+/g)].map((m) => m[0]));
      // The SDK's default address stays in its code but is never used: the extension always passes the server's.
      urls.delete("http://localhost:3000");
      urls.delete("http://localhost:3000/api/v1");
      urls.delete(SERVER);
      expect([...urls]).toEqual([]);
    }
    for (const name of ["popup.html", "options.html"]) {
      const html = readFileSync(join(out, "extension", name), "utf8");
      const sources = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]);
      expect(sources.every((s) => !/^[a-z]+:/i.test(s!))).toBe(true);
    }
  });

  it("packs the same files into extension.zip", () => {
    const files = unzipSync(new Uint8Array(readFileSync(join(out, "extension.zip"))));
    expect(Object.keys(files).sort()).toEqual(FILES.map((f) => `rubricon-extension/${f}`));
    for (const name of FILES) {
      expect(
        Buffer.from(files[`rubricon-extension/${name}`]!).equals(readFileSync(join(out, "extension", name))),
      ).toBe(true);
    }
  });
});
