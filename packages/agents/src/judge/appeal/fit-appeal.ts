/**
 * Fits the judge's sense of design to people: `pnpm exec tsx packages/agents/src/judge/appeal/fit-appeal.ts`.
 *
 * Reads the rating-based set of Reinecke & Gajos (CHI 2014) as packaged in `calista-ai/website-aesthetics-datasets`
 * from a git copy of that repository (`APPEAL_DATASET`, default the local mirror), and only its 300 training pages
 * (`rating-based-dataset/preprocess/train_means_list.csv`): the test list and the comparison-based set are held out
 * and never read. Measures every screenshot with the judge's own `visualSignals`, fits the ridge model (model.ts)
 * with its strength chosen by 10-fold cross-validation, and writes `appeal-fit.json` beside this file: the
 * coefficients, each fold's model (so a bench can score every page with a model that never saw it), and the
 * nested cross-validated Spearman over the 300. No image and no rating is written, only what was fitted.
 */
import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { visualSignals } from "../../browser/visual";
import { bestLambda, crossValidate, featureValues, fitRidge } from "./model";

export const DEFAULT_DATASET = "/work/.mirror/calista-ai+website-aesthetics-datasets/repo";
const TRAIN_LIST = "rating-based-dataset/preprocess/train_means_list.csv";
const K = 10;
const LAMBDAS = [1, 3, 10, 30, 100, 300] as const;

export interface TrainingPage {
  /** `english/143`: the set's own name for the page. */
  id: string;
  /** The screenshot's path in the repository. */
  path: string;
  /** Mean of people's 1-9 appeal ratings. */
  rating: number;
}

const git = (dataset: string, args: string[]) =>
  execFileSync("git", ["--git-dir", dataset, ...args], { maxBuffer: 64 * 1024 * 1024 });

/** The 300 training pages, sorted by id (the order the folds interleave over). */
export function trainingPages(dataset = process.env.APPEAL_DATASET ?? DEFAULT_DATASET): TrainingPage[] {
  const csv = git(dataset, ["show", `HEAD:${TRAIN_LIST}`]).toString("utf8");
  const pages: TrainingPage[] = [];
  for (const line of csv.split("\n").slice(1)) {
    const m = /^\/(english|foreign)_resized\/(\d+)\.png,([\d.]+)/.exec(line.trim());
    if (!m) continue;
    pages.push({
      id: `${m[1]}/${m[2]}`,
      path: `rating-based-dataset/images/${m[1]}/${m[2]}.png`,
      rating: Number(m[3]),
    });
  }
  return pages.sort((a, b) => a.id.localeCompare(b.id, "en", { numeric: true }));
}

/** One training screenshot's PNG bytes. */
export function trainingImage(page: TrainingPage, dataset = process.env.APPEAL_DATASET ?? DEFAULT_DATASET) {
  return new Uint8Array(git(dataset, ["show", `HEAD:${page.path}`]));
}

function main() {
  const pages = trainingPages();
  if (pages.length !== 300) throw new Error(`expected the 300 training pages, found ${pages.length}`);
  const rows = pages.map((p, i) => {
    if (i % 50 === 0) console.log(`measuring ${i}/${pages.length}`);
    return featureValues(visualSignals(trainingImage(p)));
  });
  const y = pages.map((p) => p.rating);
  const cv = crossValidate(rows, y, K, LAMBDAS);
  const lambda = bestLambda(rows, y, K, LAMBDAS);
  const fit = fitRidge(rows, y, lambda);
  const out = {
    source:
      "Reinecke & Gajos 2014 rating-based set (calista-ai/website-aesthetics-datasets), the 300 pages of train_means_list.csv",
    pages: pages.length,
    k: K,
    crossValidatedSpearman: cv.spearman,
    ...fit,
    folds: cv.folds.map((f) => ({ ...f, features: undefined })),
    pageFolds: Object.fromEntries(pages.map((p, i) => [p.id, i % K])),
  };
  const file = join(dirname(fileURLToPath(import.meta.url)), "appeal-fit.json");
  writeFileSync(file, `${JSON.stringify(out, null, 1)}\n`);
  console.log(`lambda ${lambda}; ${K}-fold cross-validated Spearman ${cv.spearman}; wrote ${file}`);
  for (const [j, name] of fit.features.entries()) console.log(`${name.padEnd(16)} ${fit.coefficients[j]}`);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) main();
