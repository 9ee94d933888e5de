import { defineConfig } from "tsup";

export default defineConfig({
  entry: ["src/index.ts"],
  format: ["esm", "cjs"],
  dts: true,
  // The same code must run on Node 18+, Bun, Deno and edge runtimes, so nothing platform-specific is assumed.
  platform: "neutral",
  target: "es2022",
  tsconfig: "tsconfig.build.json",
  sourcemap: true,
  clean: true,
  treeshake: true,
});
