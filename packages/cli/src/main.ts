import { VERSION } from "./version";

// The version answers before anything else is set up, so scripts that probe for the CLI pay for nothing.
const argv = process.argv.slice(2);
if (argv.length === 1 && (argv[0] === "--version" || argv[0] === "-v")) {
  process.stdout.write(`${VERSION}\n`);
} else {
  const { run } = await import("./run");
  process.exitCode = await run(argv);
}
