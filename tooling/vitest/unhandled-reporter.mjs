import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/**
 * Writes the run's unhandled errors (which fail a run without failing a test, and which the JSON report leaves out)
 * to `test-results/unhandled.json` (`unhandled-<TEST_PASS>.json` for a second pass), so `pnpm test` can name them
 * last in a long log.
 */
export class UnhandledErrorsReporter {
  onInit(ctx) {
    this.root = ctx.config.root;
  }

  onTestRunEnd(_modules, errors) {
    const dir = join(this.root ?? process.cwd(), "test-results");
    mkdirSync(dir, { recursive: true });
    const list = (errors ?? []).map((e) => ({ name: e?.name, message: e?.message, stack: e?.stack }));
    const pass = process.env.TEST_PASS ? `-${process.env.TEST_PASS}` : "";
    writeFileSync(join(dir, `unhandled${pass}.json`), JSON.stringify(list));
  }
}
