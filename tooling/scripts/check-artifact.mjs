// Loads every module of the deployable folder the way the running processes will, and lists each one that fails:
// `node tooling/scripts/check-artifact.mjs [dist]` (the last step of `pnpm build`, and a test in tooling/deploy).
//
// - every bundle chunk is imported, and every name an entry or chunk imports from a chunk, statically or through
//   `await import()`, must be among that chunk's exports (a CommonJS package reached through a dynamic import has
//   only a default export: a destructured named one is undefined at run time, not a load error);
// - the entries (server, worker, migrate, admin, the screenshot thread) start processes when imported, so only
//   their imports are checked;
// - every page and route module of Next's build is required, and every layout, page and boundary of a page's tree
//   loaded, as Next does on a page's first request: a module that reads a file the trace left out fails here
//   instead of answering 500.
import { AsyncLocalStorage } from "node:async_hooks";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const OUT = resolve(process.argv[2] ?? join(ROOT, "dist"));
const APP = join(OUT, "apps/web");
const ENTRIES = ["server.mjs", "worker.mjs", "migrate.mjs", "admin.mjs", "visual-thread.mjs"];

const failures = [];

/** `import{a as b,c}from"./chunks/x.mjs"` and `{a:b,c}=await import("./chunks/x.mjs")`, as esbuild writes them. */
const STATIC_IMPORT = /import\s*\{([^}]*)\}\s*from\s*"(\.\/(?:chunks\/)?[^"]+\.mjs)"/g;
const DYNAMIC_IMPORT = /\{([^{}]*)\}\s*=\s*await\s+import\(\s*"(\.\/(?:chunks\/)?[^"]+\.mjs)"\s*\)/g;

function importedNames(list, separator) {
  return list
    .split(",")
    .map((part) => part.trim().split(separator)[0]?.trim())
    .filter((name) => name && !name.startsWith("..."));
}

async function checkBundles() {
  const chunkDir = join(APP, "chunks");
  const chunks = existsSync(chunkDir) ? readdirSync(chunkDir).filter((f) => f.endsWith(".mjs")) : [];
  const exportsOf = new Map();
  for (const chunk of chunks) {
    const path = join(chunkDir, chunk);
    try {
      exportsOf.set(path, Object.keys(await import(pathToFileURL(path).href)));
    } catch (error) {
      failures.push(`${relative(OUT, path)}: ${firstLine(error)}`);
    }
  }
  const files = [
    ...ENTRIES.map((e) => join(APP, e)).filter(existsSync),
    ...chunks.map((c) => join(chunkDir, c)),
  ];
  for (const file of files) {
    const source = readFileSync(file, "utf8");
    for (const [pattern, separator] of [
      [STATIC_IMPORT, /\s+as\s+/],
      [DYNAMIC_IMPORT, ":"],
    ]) {
      for (const match of source.matchAll(pattern)) {
        const target = resolve(dirname(file), match[2]);
        const available = exportsOf.get(target);
        if (!available) {
          if (!existsSync(target)) failures.push(`${relative(OUT, file)}: imports missing ${match[2]}`);
          continue;
        }
        for (const name of importedNames(match[1], separator)) {
          if (!available.includes(name)) {
            failures.push(
              `${relative(OUT, file)}: imports \`${name}\` from ${match[2]}, which does not export it`,
            );
          }
        }
      }
    }
  }
  return chunks.length;
}

function nextModules(dir) {
  const found = [];
  if (!existsSync(dir)) return found;
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) found.push(...nextModules(path));
    else if (/^(page|route)\.js$/.test(name)) found.push(path);
  }
  return found;
}

/** Every layout, page and boundary a page's tree loads when it renders (`[segment, children, modules]`). */
async function loadTree(tree, page) {
  if (!Array.isArray(tree)) return;
  const [, children, modules] = tree;
  for (const [kind, entry] of Object.entries(modules ?? {})) {
    if (!Array.isArray(entry) || typeof entry[0] !== "function") continue;
    try {
      await entry[0]();
    } catch (error) {
      failures.push(
        `${relative(OUT, page)} (${kind} ${String(entry[1]).replace(/^\[project\]\//, "")}): ${firstLine(error)}`,
      );
    }
  }
  for (const child of Object.values(children ?? {})) await loadTree(child, page);
}

async function checkPages() {
  const pages = nextModules(join(APP, ".next/server/app"));
  // What Next's server sets before it requires a page module (next/dist/server/node-environment).
  process.env.NODE_ENV = "production";
  globalThis.AsyncLocalStorage ??= AsyncLocalStorage;
  process.env.__NEXT_PRIVATE_STANDALONE_CONFIG ??= JSON.stringify(
    JSON.parse(readFileSync(join(APP, ".next/required-server-files.json"), "utf8")).config,
  );
  // A module that fails inside a loader also rejects a promise nobody awaits; the loader's own error is listed.
  process.on("unhandledRejection", () => {});
  const require = createRequire(join(APP, "server.mjs"));
  for (const page of pages) {
    try {
      const { routeModule } = require(page);
      // A route handler's own module loads lazily (it may use top-level await); Next awaits it the same way.
      if (typeof routeModule?.ensureUserland === "function") await routeModule.ensureUserland();
      await loadTree(routeModule?.userland?.loaderTree, page);
    } catch (error) {
      failures.push(`${relative(OUT, page)}: ${firstLine(error)}`);
    }
  }
  return pages.length;
}

function firstLine(error) {
  return String(error?.message ?? error).split("\n")[0];
}

if (!existsSync(join(APP, "server.mjs"))) {
  process.stderr.write(`check-artifact: ${relative(ROOT, APP)}/server.mjs is missing: run \`pnpm build\`\n`);
  process.exit(1);
}
const chunks = await checkBundles();
const pages = await checkPages();
if (failures.length > 0) {
  process.stderr.write(
    `check-artifact: ${failures.length} module(s) of ${relative(ROOT, OUT)} fail to load:\n`,
  );
  for (const failure of failures) process.stderr.write(`  ${failure}\n`);
  process.exit(1);
}
process.stdout.write(`check-artifact: ${chunks} chunks, ${ENTRIES.length} entries and ${pages} pages load\n`);
// Loaded modules may hold timers or sockets open (telemetry, pools); the check is over.
process.exit(0);
