import { fileURLToPath } from "node:url";
import { defineConfig } from "tsup";

export default defineConfig({
  entry: { rubricon: "src/main.ts" },
  format: ["esm"],
  platform: "node",
  target: "node20",
  // One self-contained file: the SDK, commander, yaml and the rest are bundled, so installing the package
  // fetches nothing else and `npx @rubricon/cli` starts at once.
  noExternal: [/.*/],
  splitting: false,
  sourcemap: false,
  clean: true,
  treeshake: true,
  // The workspace packages are read from source, so the CLI builds without building them first.
  esbuildOptions(options) {
    options.alias = {
      "@rubricon/sdk": fileURLToPath(new URL("../sdk/src/index.ts", import.meta.url)),
      "@rubricon/webhooks": fileURLToPath(new URL("../webhooks/src/index.ts", import.meta.url)),
    };
  },
  banner: {
    // Bundled CommonJS dependencies call require() for Node built-ins, which an ES module has to provide.
    js: '#!/usr/bin/env node\nimport { createRequire as __cliCreateRequire } from "node:module";\nconst require = __cliCreateRequire(import.meta.url);',
  },
});
