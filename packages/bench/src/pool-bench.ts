/**
 * The pool part of `pnpm bench`: does the Postgres driver keep its pace under sustained load? 32 clients send
 * `select 1` one after another through a 10-connection postgres.js pool for 30 seconds (as the API bench loads the
 * servers), and the queries answered in each 5-second window are counted. Unpatched, postgres.js 3.4.9 slowed down
 * as the run went on (its busy queue never emptied, so every query scanned all queries before it); the target is a
 * last window at least 0.8 of the first.
 */
import postgres from "postgres";
import { renderTable } from "./table";

const CLIENTS = 32;
const POOL = 10;
const WINDOW_S = 5;
export const POOL_TARGET = 0.8;

export interface PoolBenchResult {
  windows: number[];
  ratio: number;
  pass: boolean;
}

export async function benchPool(url: string, log: (m: string) => void): Promise<PoolBenchResult> {
  const seconds = Number(process.env.BENCH_POOL_S ?? 30);
  const sql = postgres(url, { max: POOL, onnotice: () => {} });
  let answered = 0;
  let stop = false;
  const client = async () => {
    while (!stop) {
      await sql`select 1`;
      answered++;
    }
  };
  try {
    const clients = Array.from({ length: CLIENTS }, client);
    const windows: number[] = [];
    for (let t = 0; t < seconds; t += WINDOW_S) {
      const before = answered;
      await new Promise((r) => setTimeout(r, WINDOW_S * 1000));
      windows.push((answered - before) / WINDOW_S);
      log(`pool: ${t + WINDOW_S} s: ${Math.round(windows.at(-1)!)} queries/s`);
    }
    stop = true;
    await Promise.all(clients);
    const ratio = windows.at(-1)! / windows[0]!;
    return { windows, ratio, pass: ratio >= POOL_TARGET };
  } finally {
    await sql.end({ timeout: 5 });
  }
}

export function printPoolRows(result: PoolBenchResult): void {
  const header = [
    `select 1, ${CLIENTS} clients, pool of ${POOL}`,
    ...result.windows.map((_, i) => `${(i + 1) * WINDOW_S} s`),
    "last/first",
    `≥ ${POOL_TARGET}`,
  ];
  const row = [
    "queries/s",
    ...result.windows.map((w) => Math.round(w).toLocaleString("en-US")),
    result.ratio.toFixed(2),
    result.pass ? "pass" : "FAIL",
  ];
  process.stdout.write(`${renderTable(header, [row])}\n`);
}
