// `node tooling/scripts/module-layers.mjs DIR LAYER...`: the folders directly under DIR are modules, named from the
// bottom layer up. A module may import another only through that module's `index.ts`, and only one below it, so
// no two modules import each other and each can be read knowing only those beneath it. Fails, naming the file and
// the rule, on a module outside the list, an import of another module's internals, an import upward, or a circle
// between modules. Type-only imports count too. Files directly under DIR (the package's face) may import modules'
// faces only. With `--direction-only` (a package whose folders have no faces yet) only the order is held: the listed
// folders import only folders below them and never in a circle; other folders and the faces rule are left alone.
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { pathToFileURL } from "node:url";
import ts from "typescript";

const SOURCE = /\.tsx?$/;

function sourceFiles(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === "node_modules" ? [] : sourceFiles(path);
    return SOURCE.test(name) && !name.endsWith(".d.ts") ? [path] : [];
  });
}

function resolveRelative(from, specifier) {
  if (!specifier.startsWith(".")) return undefined;
  const base = resolve(dirname(from), specifier.replace(/\.[cm]?js$/, ""));
  const candidates = [base, `${base}.ts`, `${base}.tsx`, join(base, "index.ts"), join(base, "index.tsx")];
  return candidates.find((path) => SOURCE.test(path) && existsSync(path) && statSync(path).isFile());
}

/** Module-level circles, each as a list of module names that ends where it starts. */
function moduleCircles(edges) {
  const found = [];
  const seen = new Set();
  const walk = (node, path) => {
    for (const to of edges.get(node) ?? []) {
      const at = path.indexOf(to);
      if (at >= 0) {
        const circle = [...path.slice(at), to];
        const key = [...circle.slice(0, -1)].sort().join(" ");
        if (!seen.has(key)) {
          seen.add(key);
          found.push(circle);
        }
      } else walk(to, [...path, to]);
    }
  };
  for (const node of edges.keys()) walk(node, [node]);
  return found;
}

/**
 * The breaches of the layer rules under `dir`, as messages naming files relative to `root`. `layers` lists the
 * modules from the bottom up.
 */
export function findLayerBreaches(dir, layers, root = process.cwd(), { directionOnly = false } = {}) {
  const top = resolve(dir);
  const rank = new Map(layers.map((name, i) => [name, i]));
  const messages = [];
  const show = (file) => relative(root, file);
  for (const name of readdirSync(top)) {
    if (!directionOnly && statSync(join(top, name)).isDirectory() && !rank.has(name)) {
      messages.push(`${show(join(top, name))}: module "${name}" is in no layer; add it to the layer list.`);
    }
  }
  const edges = new Map();
  for (const file of sourceFiles(top)) {
    const parts = relative(top, file).split(sep);
    const from = parts.length > 1 ? parts[0] : null;
    const { importedFiles } = ts.preProcessFile(readFileSync(file, "utf8"), true, true);
    for (const { fileName } of importedFiles) {
      const target = resolveRelative(file, fileName);
      if (!target) continue;
      const tparts = relative(top, target).split(sep);
      if (tparts[0] === ".." && !directionOnly) {
        messages.push(`${show(file)}: imports "${fileName}", outside ${show(top)}.`);
        continue;
      }
      const to = tparts.length > 1 ? tparts[0] : null;
      if (to === from || to === null || tparts[0] === "..") continue;
      if (directionOnly && !(rank.has(from) && rank.has(to))) continue;
      if (!edges.has(from)) edges.set(from, new Set());
      edges.get(from).add(to);
      const face = tparts.length === 2 && /^index\.tsx?$/.test(tparts[1]);
      if (!face && !directionOnly) {
        messages.push(
          `${show(file)}: imports "${fileName}", inside module "${to}"; import "${to}/index.ts" and export what is needed there.`,
        );
      }
      if (from !== null && rank.has(from) && rank.has(to) && rank.get(to) > rank.get(from)) {
        messages.push(
          `${show(file)}: imports "${fileName}" of module "${to}", a layer above "${from}" (layers from the bottom: ${layers.join(" < ")}); move what both need down, or pass it in.`,
        );
      }
    }
  }
  edges.delete(null);
  for (const circle of moduleCircles(edges)) {
    messages.push(`${show(top)}: modules import each other in a circle: ${circle.join(" -> ")}.`);
  }
  return messages;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const args = process.argv.slice(2);
  const directionOnly = args[0] === "--direction-only";
  const [dir, ...layers] = directionOnly ? args.slice(1) : args;
  if (!dir || layers.length === 0) {
    console.error(
      "usage: node tooling/scripts/module-layers.mjs [--direction-only] DIR LAYER... (bottom layer first)",
    );
    process.exit(2);
  }
  const found = findLayerBreaches(dir, layers, process.cwd(), { directionOnly });
  for (const message of found) console.error(message);
  if (found.length > 0) {
    console.error(`${found.length} breach(es) of the module layers in ${dir}.`);
    process.exit(1);
  }
  console.log(`modules in ${dir} keep their layers: ${layers.join(" < ")}`);
}
