import { Command, CommanderError } from "commander";
import { registerAuth } from "./commands/auth";
import { registerCompletion } from "./commands/completion";
import { registerListen } from "./commands/listen";
import { registerResources } from "./commands/resources";
import { registerRuns } from "./commands/runs";
import { registerTrigger } from "./commands/trigger";
import { VERSION } from "./version";

export function buildProgram(): Command {
  const program = new Command("rubricon")
    .description("The Rubricon API from the command line. `--json` on any command prints the API's JSON.")
    .version(VERSION, "-v, --version", "print the version")
    .option("--api-key <key>", "an API key (default: RUBRICON_API_KEY, then the profile)")
    .option(
      "--base-url <url>",
      "the server, e.g. https://rubricon.example.com (default: RUBRICON_BASE_URL, then the profile)",
    )
    .option("-p, --profile <name>", 'the saved profile to use (default: RUBRICON_PROFILE, then "default")')
    .option("--json", "print JSON for scripts instead of tables")
    .showHelpAfterError("(add --help for usage)")
    .showSuggestionAfterError()
    .exitOverride()
    .configureOutput({
      outputError: (text, write) => write(text),
    });
  registerAuth(program);
  registerResources(program);
  registerRuns(program);
  registerListen(program);
  registerTrigger(program);
  registerCompletion(program);
  return program;
}

export { CommanderError };
