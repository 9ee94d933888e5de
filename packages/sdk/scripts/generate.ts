import { mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { GENERATED_DIR, loadOpenApiDocument, renderGeneratedFiles } from "./codegen";

const files = await renderGeneratedFiles(await loadOpenApiDocument());
mkdirSync(GENERATED_DIR, { recursive: true });
// A file the generator no longer makes would otherwise linger and still compile against stale types.
for (const name of readdirSync(GENERATED_DIR)) {
  if (!(name in files)) rmSync(new URL(name, GENERATED_DIR));
}
for (const [name, text] of Object.entries(files)) writeFileSync(new URL(name, GENERATED_DIR), text);
console.log(`Wrote ${Object.keys(files).join(", ")} to src/generated/.`);
