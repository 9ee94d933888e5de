// `node tooling/scripts/import-cycles.mjs DIR...`: fails when the TypeScript modules under a folder import each
// other in a circle. Type-only imports count too: a circle of types is still two modules that cannot be read,
// moved or tested apart. Imports of other packages are left out (packages cannot import each other in a circle).
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import ts from "typescript";

const SOURCE = /\.tsx?$/;
const TEST = /\.test\.tsx?$/;

function sourceFiles(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === "node_modules" ? [] : sourceFiles(path);
    return SOURCE.test(name) && !TEST.test(name) && !name.endsWith(".d.ts") ? [path] : [];
  });
}

/** The file a relative specifier names, as TypeScript's bundler resolution finds it; undefined for packages. */
function resolveRelative(from, specifier) {
  if (!specifier.startsWith(".")) return undefined;
  const base = resolve(dirname(from), specifier.replace(/\.[cm]?js$/, ""));
  const candidates = [base, `${base}.ts`, `${base}.tsx`, join(base, "index.ts"), join(base, "index.tsx")];
  return candidates.find((path) => SOURCE.test(path) && existsSync(path) && statSync(path).isFile());
}

function importGraph(files) {
  const graph = new Map();
  for (const file of files) {
    const { importedFiles } = ts.preProcessFile(readFileSync(file, "utf8"), true, true);
    const targets = importedFiles.map((i) => resolveRelative(file, i.fileName)).filter(Boolean);
    graph.set(file, [...new Set(targets)]);
  }
  return graph;
}

/** Strongly connected groups of more than one module (or a module importing itself), by Tarjan's algorithm. */
function circles(graph) {
  let next = 0;
  const index = new Map();
  const low = new Map();
  const stack = [];
  const onStack = new Set();
  const found = [];
  const visit = (node) => {
    index.set(node, next);
    low.set(node, next++);
    stack.push(node);
    onStack.add(node);
    for (const to of graph.get(node) ?? []) {
      if (!index.has(to)) {
        visit(to);
        low.set(node, Math.min(low.get(node), low.get(to)));
      } else if (onStack.has(to)) low.set(node, Math.min(low.get(node), index.get(to)));
    }
    if (low.get(node) !== index.get(node)) return;
    const group = [];
    let member;
    do {
      member = stack.pop();
      onStack.delete(member);
      group.push(member);
    } while (member !== node);
    if (group.length > 1 || (graph.get(node) ?? []).includes(node)) found.push(group);
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return found;
}

/** One circle through the group's first module, as a path that ends where it starts. */
function pathThrough(graph, group) {
  const members = new Set(group);
  const start = [...group].sort()[0];
  const seen = new Set([start]);
  const queue = [[start]];
  while (queue.length > 0) {
    const path = queue.shift();
    for (const to of graph.get(path.at(-1)) ?? []) {
      if (to === start) return [...path, start];
      if (members.has(to) && !seen.has(to)) {
        seen.add(to);
        queue.push([...path, to]);
      }
    }
  }
  return [start, start];
}

/** The import circles among the modules under `dir`, each as a list of paths relative to `root`. */
export function findImportCycles(dir, root = process.cwd()) {
  const graph = importGraph(sourceFiles(resolve(dir)));
  return circles(graph).map((group) => pathThrough(graph, group).map((file) => relative(root, file)));
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const dirs = process.argv.slice(2);
  if (dirs.length === 0) {
    console.error("usage: node tooling/scripts/import-cycles.mjs DIR...");
    process.exit(2);
  }
  const found = dirs.flatMap((dir) => findImportCycles(dir));
  for (const cycle of found) console.error(`import circle: ${cycle.join(" -> ")}`);
  if (found.length > 0) {
    console.error(`${found.length} import circle(s); move what both sides need into a module of its own.`);
    process.exit(1);
  }
  console.log(`no import circles in ${dirs.join(", ")}`);
}
