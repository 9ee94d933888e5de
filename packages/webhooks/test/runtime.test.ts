import { createHmac } from "node:crypto";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import vm from "node:vm";
import { build } from "tsup";
import { beforeAll, describe, expect, it } from "vitest";
import { BODY, NOW, SECRET } from "./fixtures";

const packageDir = fileURLToPath(new URL("..", import.meta.url));
const GLOBAL_NAME = "RubriconWebhooks";

let esm = "";
let iife = "";

/**
 * Bundles src with the settings of the published build, plus an IIFE that can run in a bare vm context, so
 * the test covers the code as shipped without depending on a previous `tsup` run.
 */
beforeAll(async () => {
  const outDir = await mkdtemp(join(tmpdir(), "rubricon-webhooks-"));
  try {
    await build({
      config: false,
      entry: { index: join(packageDir, "src/index.ts") },
      format: ["esm", "iife"],
      globalName: GLOBAL_NAME,
      outDir,
      platform: "neutral",
      target: "es2022",
      tsconfig: join(packageDir, "tsconfig.build.json"),
      dts: false,
      silent: true,
    });
    esm = await readFile(join(outDir, "index.js"), "utf8");
    iife = await readFile(join(outDir, "index.global.js"), "utf8");
  } finally {
    await rm(outDir, { recursive: true, force: true });
  }
}, 60_000);

/** A context with the Web platform globals an edge runtime offers and none of Node's. */
function webOnlyContext(extra: Record<string, unknown> = {}): vm.Context {
  const context = vm.createContext({
    crypto: globalThis.crypto,
    TextEncoder,
    TextDecoder,
    Headers,
    ...extra,
  });
  vm.runInContext(iife, context);
  return context;
}

function nodeSignature(body: string, secret: string, timestamp: number): string {
  return createHmac("sha256", secret).update(`${timestamp}.${body}`).digest("hex");
}

describe("the bundled package", () => {
  it("imports nothing: no dependencies and no Node built-ins", () => {
    expect(esm).toContain("async function verify(");
    expect(esm).not.toMatch(/^\s*import\s/m);
    expect(esm).not.toMatch(/\brequire\s*\(/);
    expect(esm).not.toMatch(/\bBuffer\b|\bprocess\b/);
  });

  it("signs, verifies and parses with Web Crypto alone", async () => {
    const context = webOnlyContext({ body: BODY, secret: SECRET, now: NOW });
    expect(
      vm.runInContext("[typeof require, typeof process, typeof Buffer, typeof module]", context),
    ).toEqual(["undefined", "undefined", "undefined", "undefined"]);
    const result = await vm.runInContext(
      `(async () => {
        const w = ${GLOBAL_NAME};
        const next = "whsec_bmV3";
        const { header } = await w.sign(body, secret, { timestamp: now });
        const signed = { "service-signature": header };
        await w.verify(body, new Headers({ "Service-Signature": header }), secret, { now });
        const rotation = { secret: next, previousSecret: secret, timestamp: now };
        const rotated = await w.signatureHeaders(body, rotation);
        await w.verify(new TextEncoder().encode(body), rotated, [next], { now });
        const event = await w.constructEvent(new TextEncoder().encode(body).buffer, signed, secret, { now });
        const reasons = [];
        for (const attempt of [
          () => w.verify(body + " ", signed, secret, { now }),
          () => w.verify(JSON.parse(body), signed, secret, { now }),
          () => w.verify(body, signed, secret, { now: now + 301 }),
        ]) {
          try {
            await attempt();
            reasons.push("passed");
          } catch (error) {
            reasons.push(error instanceof w.WebhookVerificationError ? error.reason : String(error));
          }
        }
        return { header, type: event.type, name: event.data.object.name, reasons };
      })()`,
      context,
    );
    expect(result).toEqual({
      header: `t=${NOW},v1=${nodeSignature(BODY, SECRET, NOW)}`,
      type: "evaluation.created",
      name: "Checkout — größere Buttons ✓",
      reasons: ["no_matching_signature", "invalid_body", "timestamp_outside_tolerance"],
    });
  });

  it("says what is missing when the runtime has no Web Crypto", async () => {
    const context = webOnlyContext({ body: BODY, secret: SECRET });
    vm.runInContext("delete globalThis.crypto", context);
    await expect(vm.runInContext(`${GLOBAL_NAME}.sign(body, secret)`, context)).rejects.toThrow(
      /needs the Web Crypto API/,
    );
  });
});
