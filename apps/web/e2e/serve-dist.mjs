// The end-to-end suite's server (playwright.config.ts `webServer`): the deployable build in dist/, started as
// docs/deployment.md starts it. With `DATABASE_URL` (CI): migrate, a web process and a worker given `REDIS_URL`,
// on a fresh database of its own; without: one web process on the embedded database, as the quick start runs.
import { startDeployment } from "@rubricon/vitest-config/dist";

const deployment = await startDeployment({
  port: Number(process.env.E2E_PORT ?? 3107),
  env: JSON.parse(process.env.E2E_SERVER_ENV ?? "{}"),
});
process.stdout.write(
  `e2e: dist/ serves ${deployment.url} (${deployment.processes.map((p) => p.entry).join(", ")})\n`,
);

let stopping = false;
async function stop() {
  if (stopping) return;
  stopping = true;
  await deployment.stop();
  process.exit(0);
}
process.on("SIGTERM", stop);
process.on("SIGINT", stop);
// A process of the deployment that dies ends the run: specs would otherwise fail one by one against a dead server.
for (const proc of deployment.processes) {
  proc.exited.then((code) => {
    if (stopping) return;
    process.stderr.write(`e2e: ${proc.entry} exited with ${code}:\n${proc.output().slice(-4000)}\n`);
    process.exit(1);
  });
}
