// `pnpm admin <command>`: the operator CLI from the production build (dist/apps/web/admin.mjs, made by
// `pnpm build`), so its help answers without TypeScript being compiled first. From source, for development:
// `pnpm --filter @rubricon/api admin:source <command>`.
import { existsSync } from "node:fs";
import { fileURLToPath, pathToFileURL } from "node:url";

const bundle = fileURLToPath(new URL("../../dist/apps/web/admin.mjs", import.meta.url));
if (!existsSync(bundle)) {
  process.stderr.write(
    "The admin CLI is not built yet: run `pnpm build` first (it writes dist/apps/web/admin.mjs), or run it from " +
      "source with `pnpm --filter @rubricon/api admin:source <command>`.\n",
  );
  process.exit(1);
}
await import(pathToFileURL(bundle).href);
