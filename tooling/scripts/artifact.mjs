// The deployable folder (`pnpm build`, last step; tooling/scripts/image-build.sh for images): everything the web
// server, the worker and the migrations need to run with plain `node`, and nothing else (no tsx, no TypeScript,
// no dev dependencies). Layout, in docs/deployment.md:
//
//   <out>/apps/web/server.mjs     web + API server        (apps/web/server.ts, bundled)
//   <out>/apps/web/worker.mjs     background worker       (apps/worker/src/main.ts, bundled)
//   <out>/apps/web/migrate.mjs    applies the migrations  (packages/db/src/migrate-cli.ts, bundled)
//   <out>/apps/web/admin.mjs      operator CLI            (packages/api/src/admin/cli.ts, bundled; `pnpm admin`)
//   <out>/apps/web/visual-thread.mjs  screenshot measures' thread (packages/agents/src/browser/visual-thread.ts)
//   <out>/apps/web/drizzle/       the SQL migrations
//   <out>/apps/web/.next/         Next's standalone build of the pages, with its static files
//   <out>/node_modules/           what Next traced, plus the packages kept out of the bundles
//
// The workspace packages are TypeScript sources, so they go into the bundles; so do their pure-JS dependencies.
// Kept out: Next and React (the standalone output carries them), PGlite (loads its WASM and data files from beside
// its module) and Playwright with axe (large, read their own files at run time; only browser work needs them).
import { cpSync, existsSync, lstatSync, mkdirSync, readFileSync, realpathSync, rmSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const WEB = join(ROOT, "apps/web");

const outArg = process.argv.indexOf("--out");
const OUT = resolve(outArg > 0 ? process.argv[outArg + 1] : join(ROOT, "dist"));
const APP = join(OUT, "apps/web");

/** Packages the bundles import at run time, with the workspace package that depends on each. */
const EXTERNAL = {
  "@electric-sql/pglite": "packages/db",
  "playwright-core": "packages/agents",
  "@axe-core/playwright": "packages/agents",
  "axe-core": "packages/agents",
};
/** Served by Next's standalone output (apps/web/node_modules there). */
const FROM_STANDALONE = ["next", "react", "react-dom"];

function log(message) {
  process.stdout.write(`artifact: ${message}\n`);
}

/** The real folder of `name` as Node would find it from `fromDir` (pnpm links each package's dependencies). */
function packageDir(name, fromDir) {
  for (let dir = fromDir; ; dir = dirname(dir)) {
    const candidate = join(dir, "node_modules", name);
    if (existsSync(join(candidate, "package.json"))) return realpathSync(candidate);
    if (dirname(dir) === dir) throw new Error(`${name} not found from ${fromDir}`);
  }
}

/** Copies a package and its dependencies, flat, under <out>/node_modules, following pnpm's links. */
function copyPackage(name, fromDir, seen = new Set()) {
  if (seen.has(name)) return;
  seen.add(name);
  const source = packageDir(name, fromDir);
  cpSync(source, join(OUT, "node_modules", name), { recursive: true, dereference: true });
  const manifest = JSON.parse(readFileSync(join(source, "package.json"), "utf8"));
  for (const dep of Object.keys(manifest.dependencies ?? {})) {
    // A package's dependencies sit beside it in pnpm's store (…/node_modules/<dep>).
    copyPackage(dep, source, seen);
  }
}

/**
 * The workspace packages import each other through their index files; marked free of side effects (none has an
 * import for its side effects alone) their unused modules stay out of a bundle. The worker's bundle then holds no
 * HTTP surface, OAuth server or MCP server: it was 8.5 MB of code and ~40 MB more memory without this.
 */
const WORKSPACE_SOURCE = new RegExp(`^${ROOT.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}/packages/[^/]+/src/`);
const workspaceSideEffectFree = {
  name: "workspace-side-effect-free",
  setup(b) {
    b.onResolve({ filter: /^(\.|@rubricon\/)/ }, async (args) => {
      if (args.pluginData === "resolving") return undefined;
      const resolved = await b.resolve(args.path, {
        resolveDir: args.resolveDir,
        kind: args.kind,
        importer: args.importer,
        pluginData: "resolving",
      });
      if (resolved.errors.length > 0 || !WORKSPACE_SOURCE.test(resolved.path)) return resolved;
      return { ...resolved, sideEffects: false };
    });
  },
};

/**
 * One entry per build, so that each leaves out what it does not use (built together, a module one entry uses
 * would be reachable from the others). Splitting puts each dynamic import() in a chunk of its own, read from
 * disk on first use: the mail and S3 libraries are not even parsed by a process that never needs them.
 */
async function bundle(name, path) {
  await build({
    entryPoints: { [name]: join(ROOT, path) },
    outdir: APP,
    entryNames: "[name]",
    chunkNames: "chunks/[name]-[hash]",
    outExtension: { ".js": ".mjs" },
    splitting: true,
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    // The `node` condition picks packages' Node builds; `import` their ESM where both exist.
    conditions: ["node", "import"],
    external: [...Object.keys(EXTERNAL), ...FROM_STANDALONE, ...FROM_STANDALONE.map((n) => `${n}/*`)],
    // CommonJS dependencies inside an ES module bundle still call require() and read __dirname.
    banner: {
      js: [
        'import { createRequire as __rubriconCreateRequire } from "node:module";',
        'import { dirname as __rubriconDirname } from "node:path";',
        'import { fileURLToPath as __rubriconFileURLToPath } from "node:url";',
        "const require = __rubriconCreateRequire(import.meta.url);",
        "const __filename = __rubriconFileURLToPath(import.meta.url);",
        "const __dirname = __rubriconDirname(__filename);",
      ].join("\n"),
    },
    plugins: [workspaceSideEffectFree],
    // Names stay as written, even where two modules' names collide: oidc-provider tells its models apart by their
    // classes' `name` (a renamed AccessToken loses its expiry), and error classes and logs use them too.
    keepNames: true,
    // Whitespace and comments go, and ASCII-only output
    // keeps V8 from holding the source as a two-byte string.
    charset: "ascii",
    minifyWhitespace: true,
    minifySyntax: true,
    legalComments: "none",
    logLevel: "warning",
  });
}

// `--admin-only` / `--server-only`: just the operator CLI or the web server, into an artifact already built (their
// bundles need only the externals there), after a change to the API's sources.
for (const [flag, name, path] of [
  ["--admin-only", "admin", "packages/api/src/admin/cli.ts"],
  ["--server-only", "server", "apps/web/server.ts"],
]) {
  if (!process.argv.includes(flag)) continue;
  if (!existsSync(join(OUT, "node_modules")))
    throw new Error(`${relative(ROOT, OUT)} is missing: run \`pnpm build\` first`);
  await bundle(name, path);
  log(`${name} bundled into ${relative(ROOT, APP)}`);
  process.exit(0);
}

const standalone = join(WEB, ".next/standalone");
if (!existsSync(join(standalone, "apps/web/.next"))) {
  throw new Error(`${relative(ROOT, standalone)} is missing: run \`next build\` in apps/web first`);
}

rmSync(OUT, { recursive: true, force: true });
mkdirSync(OUT, { recursive: true });
// pnpm's layout inside the standalone output is links into node_modules/.pnpm; keep them as links.
cpSync(standalone, OUT, { recursive: true, verbatimSymlinks: true });
cpSync(join(WEB, ".next/static"), join(APP, ".next/static"), { recursive: true });
if (existsSync(join(WEB, "public"))) cpSync(join(WEB, "public"), join(APP, "public"), { recursive: true });
// Next's own minimal server is replaced by ours (it would serve the API through Next's route handlers).
rmSync(join(APP, "server.js"), { force: true });
log(`standalone pages copied into ${OUT}`);

await bundle("server", "apps/web/server.ts");
await bundle("worker", "apps/worker/src/main.ts");
await bundle("migrate", "packages/db/src/migrate-cli.ts");
// Its commands import the domain lazily, so `help` reads one small file instead of compiling the API with tsx.
await bundle("admin", "packages/api/src/admin/cli.ts");
// Started by the worker's (and the server's) screenshot pool from beside the bundle: a thread needs a file of its own.
await bundle("visual-thread", "packages/agents/src/browser/visual-thread.ts");
log("server, worker, migrate, admin and the screenshot thread bundled");

cpSync(join(ROOT, "packages/db/drizzle"), join(APP, "drizzle"), { recursive: true });
const seen = new Set(FROM_STANDALONE);
for (const [name, from] of Object.entries(EXTERNAL)) {
  // Copied already, whole, as another external's dependency (axe-core with @axe-core/playwright).
  if (seen.has(name)) continue;
  // Next may have traced part of a package already; the whole package replaces it.
  const target = join(OUT, "node_modules", name);
  if (existsSync(target) || isLink(target)) rmSync(target, { recursive: true, force: true });
  copyPackage(name, join(ROOT, from), seen);
}
log(`done: start with \`node ${relative(process.cwd(), join(APP, "server.mjs"))}\``);

function isLink(path) {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
}
