import { defineConfig } from "tsup";

export default defineConfig({
  entry: ["src/index.ts"],
  format: ["esm", "cjs"],
  // The declaration build type-checks src without Node's types (tsconfig.build.json), so a `node:` import or
  // a use of Buffer or process fails the build instead of shipping to Bun, Deno and edge runtimes.
  dts: true,
  tsconfig: "tsconfig.build.json",
  platform: "neutral",
  target: "es2022",
  clean: true,
});
