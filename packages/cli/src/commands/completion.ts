import type { Command, Option } from "commander";
import { action } from "../command-kit";
import { UsageError } from "../errors";

interface Node {
  path: string[];
  words: string[];
  description: string;
}

function flags(options: readonly Option[]): string[] {
  return options.flatMap((o) => [o.long, o.short].filter((f): f is string => Boolean(f)));
}

/** Every command path with what may follow it: its subcommands and its own options. */
function walk(command: Command, path: string[], globals: string[]): Node[] {
  const subs = command.commands.filter((c) => c.name() !== "help");
  const words = [...subs.flatMap((c) => [c.name(), ...c.aliases()]), ...flags(command.options), "--help"];
  const nodes: Node[] = [
    { path, words: path.length === 0 ? [...words, ...globals] : words, description: command.description() },
  ];
  for (const sub of subs) nodes.push(...walk(sub, [...path, sub.name()], globals));
  return nodes;
}

function bash(program: Command): string {
  const globals = flags(program.options);
  const nodes = walk(program, [], globals).sort((a, b) => b.path.length - a.path.length);
  const cases = nodes
    .map(
      (n) =>
        `    ${n.path.length ? `"${n.path.join(" ")}"*` : "*"}) words="${[...n.words, ...(n.path.length ? globals : [])].join(" ")}" ;;`,
    )
    .join("\n");
  return `# rubricon completion for bash: add to ~/.bashrc
#   source <(rubricon completion bash)
_rubricon_completion() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" path="" i w words
  for ((i = 1; i < COMP_CWORD; i++)); do
    w="\${COMP_WORDS[i]}"
    [[ "$w" == -* ]] && continue
    path="\${path:+$path }$w"
  done
  case "$path" in
${cases}
  esac
  COMPREPLY=($(compgen -W "$words" -- "$cur"))
}
complete -o default -F _rubricon_completion rubricon
`;
}

function zsh(program: Command): string {
  return `#compdef rubricon
# rubricon completion for zsh: add to ~/.zshrc
#   source <(rubricon completion zsh)
autoload -U +X bashcompinit && bashcompinit
${bash(program)
  .split("\n")
  .filter((l) => !l.startsWith("#"))
  .join("\n")}`;
}

function fish(program: Command): string {
  const esc = (s: string) => s.replace(/'/g, "\\'");
  const lines = [
    "# rubricon completion for fish: rubricon completion fish > ~/.config/fish/completions/rubricon.fish",
    "complete -c rubricon -f",
  ];
  for (const o of program.options) {
    const long = o.long?.replace(/^--/, "");
    if (long)
      lines.push(`complete -c rubricon -l ${long}${o.required ? " -r" : ""} -d '${esc(o.description)}'`);
  }
  const top = program.commands.filter((c) => c.name() !== "help");
  for (const c of top) {
    lines.push(`complete -c rubricon -n __fish_use_subcommand -a ${c.name()} -d '${esc(c.description())}'`);
    for (const sub of c.commands.filter((s) => s.name() !== "help")) {
      lines.push(
        `complete -c rubricon -n '__fish_seen_subcommand_from ${c.name()}' -a ${sub.name()} -d '${esc(sub.description())}'`,
      );
    }
    for (const o of [...c.options, ...c.commands.flatMap((s) => s.options)]) {
      const long = o.long?.replace(/^--/, "");
      if (long)
        lines.push(
          `complete -c rubricon -n '__fish_seen_subcommand_from ${c.name()}' -l ${long} -d '${esc(o.description)}'`,
        );
    }
  }
  return `${[...new Set(lines)].join("\n")}\n`;
}

export function registerCompletion(program: Command): void {
  program
    .command("completion <shell>")
    .description("Print the shell completion script for bash, zsh or fish")
    .action(
      action(async (inv) => {
        const shell = inv.args[0];
        const script =
          shell === "bash"
            ? bash(program)
            : shell === "zsh"
              ? zsh(program)
              : shell === "fish"
                ? fish(program)
                : undefined;
        if (script === undefined)
          throw new UsageError(`Completion is for bash, zsh or fish, not "${shell}".`);
        process.stdout.write(script);
      }),
    );
}
