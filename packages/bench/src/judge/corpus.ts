/**
 * The pages `pnpm bench judge` rates: published page templates installed from npm at bench time (pinned versions,
 * into a cache directory outside the repo's dependencies, reused once present). `startbootstrap-*` is held out:
 * the judge is tuned on the other packages and measured on these.
 */
import { execFile } from "node:child_process";
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";

export type CorpusName = "tuning" | "heldout";

export interface CorpusPackage {
  /** npm name and pinned version. */
  name: string;
  version: string;
  corpus: CorpusName;
  /** The folder (inside the package) the site is served from; pages use absolute paths below it. */
  root: string;
  /** Pages below `root`, with what kind of page each is. */
  pages: { path: string; kind: string }[];
}

export const PACKAGES: CorpusPackage[] = [
  {
    name: "@creative-tim-official/argon-dashboard",
    version: "2.0.4",
    corpus: "tuning",
    root: "",
    pages: [
      { path: "pages/dashboard.html", kind: "dashboard" },
      { path: "pages/sign-in.html", kind: "sign-in" },
      { path: "pages/sign-up.html", kind: "register" },
      { path: "pages/tables.html", kind: "tables" },
      { path: "pages/profile.html", kind: "profile" },
    ],
  },
  {
    name: "material-dashboard",
    version: "3.1.0",
    corpus: "tuning",
    root: "",
    pages: [
      { path: "pages/dashboard.html", kind: "dashboard" },
      { path: "pages/sign-in.html", kind: "sign-in" },
      { path: "pages/tables.html", kind: "tables" },
      { path: "pages/billing.html", kind: "billing" },
    ],
  },
  {
    name: "material-kit",
    version: "2.0.4",
    corpus: "tuning",
    root: "",
    pages: [
      { path: "examples/landing-page.html", kind: "landing" },
      { path: "examples/login-page.html", kind: "sign-in" },
      { path: "examples/profile-page.html", kind: "profile" },
    ],
  },
  {
    name: "gentelella",
    version: "4.2.0",
    corpus: "tuning",
    // Its pages load `/assets/...` from the site root.
    root: "dist",
    pages: [
      { path: "production/landing.html", kind: "landing" },
      { path: "production/login.html", kind: "sign-in" },
      { path: "production/index.html", kind: "dashboard" },
      { path: "production/chartjs.html", kind: "charts" },
      { path: "production/projects.html", kind: "tables" },
      { path: "production/pricing_tables.html", kind: "pricing" },
      { path: "production/invoice.html", kind: "invoice" },
      { path: "production/e_commerce.html", kind: "shop" },
    ],
  },
  {
    name: "@creative-tim-official/argon-dashboard-free",
    version: "1.2.0",
    corpus: "tuning",
    root: "",
    pages: [
      { path: "examples/login.html", kind: "sign-in" },
      { path: "examples/register.html", kind: "register" },
      { path: "examples/tables.html", kind: "tables" },
      { path: "examples/dashboard.html", kind: "dashboard" },
    ],
  },
  {
    name: "startbootstrap-sb-admin-2",
    version: "4.1.4",
    corpus: "heldout",
    root: "",
    pages: [
      { path: "index.html", kind: "dashboard" },
      { path: "login.html", kind: "sign-in" },
      { path: "register.html", kind: "register" },
      { path: "tables.html", kind: "tables" },
      { path: "charts.html", kind: "charts" },
    ],
  },
  {
    name: "startbootstrap-sb-admin",
    version: "7.0.7",
    corpus: "heldout",
    root: "dist",
    pages: [
      { path: "index.html", kind: "dashboard" },
      { path: "login.html", kind: "sign-in" },
      { path: "tables.html", kind: "tables" },
    ],
  },
  {
    name: "startbootstrap-creative",
    version: "7.0.7",
    corpus: "heldout",
    root: "dist",
    pages: [{ path: "index.html", kind: "landing" }],
  },
  {
    name: "startbootstrap-resume",
    version: "7.0.6",
    corpus: "heldout",
    root: "dist",
    pages: [{ path: "index.html", kind: "résumé" }],
  },
  {
    name: "startbootstrap-simple-sidebar",
    version: "6.0.6",
    corpus: "heldout",
    root: "dist",
    pages: [{ path: "index.html", kind: "sidebar layout" }],
  },
  {
    name: "startbootstrap-agency",
    version: "7.0.12",
    corpus: "heldout",
    root: "dist",
    pages: [{ path: "index.html", kind: "landing" }],
  },
  {
    name: "startbootstrap-freelancer",
    version: "7.0.7",
    corpus: "heldout",
    root: "dist",
    pages: [{ path: "index.html", kind: "portfolio" }],
  },
  {
    name: "startbootstrap-landing-page",
    version: "6.0.6",
    corpus: "heldout",
    root: "dist",
    pages: [{ path: "index.html", kind: "landing" }],
  },
  {
    name: "startbootstrap-grayscale",
    version: "7.0.6",
    corpus: "heldout",
    root: "dist",
    pages: [{ path: "index.html", kind: "landing" }],
  },
  {
    name: "startbootstrap-coming-soon",
    version: "6.0.7",
    corpus: "heldout",
    root: "dist",
    pages: [{ path: "index.html", kind: "sign-up" }],
  },
  {
    name: "startbootstrap-clean-blog",
    version: "6.0.9",
    corpus: "heldout",
    root: "dist",
    pages: [
      { path: "index.html", kind: "blog" },
      { path: "contact.html", kind: "contact form" },
    ],
  },
  {
    name: "startbootstrap-new-age",
    version: "6.0.7",
    corpus: "heldout",
    root: "dist",
    pages: [{ path: "index.html", kind: "app landing" }],
  },
  {
    name: "startbootstrap-stylish-portfolio",
    version: "6.0.6",
    corpus: "heldout",
    root: "dist",
    pages: [{ path: "index.html", kind: "portfolio" }],
  },
  {
    name: "startbootstrap-one-page-wonder",
    version: "6.0.6",
    corpus: "heldout",
    root: "dist",
    pages: [{ path: "index.html", kind: "landing" }],
  },
  {
    name: "startbootstrap-heroic-features",
    version: "5.0.6",
    corpus: "heldout",
    root: "dist",
    pages: [{ path: "index.html", kind: "landing" }],
  },
  {
    name: "startbootstrap-scrolling-nav",
    version: "5.0.6",
    corpus: "heldout",
    root: "dist",
    pages: [{ path: "index.html", kind: "one-page site" }],
  },
  {
    name: "startbootstrap-business-casual",
    version: "7.0.9",
    corpus: "heldout",
    root: "dist",
    pages: [
      { path: "index.html", kind: "business" },
      { path: "store.html", kind: "business" },
    ],
  },
  {
    name: "startbootstrap-personal",
    version: "1.0.1",
    corpus: "heldout",
    root: "dist",
    pages: [
      { path: "index.html", kind: "personal site" },
      { path: "contact.html", kind: "contact form" },
    ],
  },
  {
    name: "startbootstrap-business-frontpage",
    version: "5.0.9",
    corpus: "heldout",
    root: "dist",
    pages: [{ path: "index.html", kind: "business" }],
  },
];

const run = promisify(execFile);

/** The install folder of one package (its own prefix, so packages that want different Bootstraps never clash). */
export function prefixOf(cacheDir: string, pkg: CorpusPackage): string {
  return join(cacheDir, `${pkg.name.replace(/[@/]/g, "_")}@${pkg.version}`);
}

export function packageDir(cacheDir: string, pkg: CorpusPackage): string {
  return join(prefixOf(cacheDir, pkg), "node_modules", pkg.name);
}

/**
 * Installs the packages not yet in the cache (scripts off, production dependencies only, no lockfile), a few at a
 * time. Answers the packages that are ready; one that cannot be installed is reported and left out.
 */
export async function installCorpus(
  cacheDir: string,
  packages: CorpusPackage[],
  log: (line: string) => void,
): Promise<CorpusPackage[]> {
  const ready: CorpusPackage[] = [];
  const queue = [...packages];
  const worker = async () => {
    for (let pkg = queue.shift(); pkg; pkg = queue.shift()) {
      const prefix = prefixOf(cacheDir, pkg);
      if (!existsSync(join(packageDir(cacheDir, pkg), "package.json"))) {
        mkdirSync(prefix, { recursive: true });
        log(`installing ${pkg.name}@${pkg.version}`);
        try {
          await run(
            "npm",
            [
              "install",
              "--prefix",
              prefix,
              "--ignore-scripts",
              "--no-audit",
              "--no-fund",
              "--omit=dev",
              "--no-package-lock",
              "--loglevel=error",
              `${pkg.name}@${pkg.version}`,
            ],
            { timeout: 300_000, maxBuffer: 16 * 1024 * 1024 },
          );
        } catch (err) {
          log(`could not install ${pkg.name}@${pkg.version}: ${(err as Error).message.split("\n")[0]}`);
          continue;
        }
      }
      ready.push(pkg);
    }
  };
  await Promise.all([worker(), worker(), worker()]);
  return packages.filter((p) => ready.includes(p));
}
