import autocannon from "autocannon";

export interface LoadTarget {
  url: string;
  method: "GET" | "POST";
  headers: Record<string, string>;
  body?: string;
}

export interface LoadOptions {
  connections: number;
  durationS: number;
  warmupS: number;
}

export interface LoadResult {
  requestsPerSec: number;
  p50Ms: number;
  p99Ms: number;
  requests: number;
  /** Responses outside 2xx plus socket errors and timeouts; any makes the figures suspect. */
  failures: number;
  /** The server's process CPU time over the measured run divided by the requests it answered, when sampled. */
  cpuMsPerRequest?: number;
  /** The server's write system calls over the measured run divided by the requests it answered, when sampled. */
  writeCallsPerRequest?: number;
}

function once(target: LoadTarget, connections: number, durationS: number): Promise<autocannon.Result> {
  return new Promise((resolve, reject) => {
    autocannon(
      {
        url: target.url,
        method: target.method,
        headers: target.headers,
        body: target.body,
        connections,
        duration: durationS,
        timeout: 10,
      },
      (err, result) => (err ? reject(err) : resolve(result)),
    );
  });
}

/**
 * Closed loop: a fixed number of keep-alive connections, each sending its next request when the last answers.
 * With `serverCpuMs` (the server's CPU time so far), the CPU the server spent per request is taken over the
 * measured run: it includes whatever else the server did meanwhile, which on an idle server is next to nothing.
 * `serverWriteCalls` (its write system calls so far) is taken the same way.
 */
export async function runLoad(
  target: LoadTarget,
  opts: LoadOptions,
  serverCpuMs?: () => number,
  serverWriteCalls?: () => number,
): Promise<LoadResult> {
  // The warm-up lets JIT, connection pools and the database's caches settle; its figures are thrown away.
  if (opts.warmupS > 0) await once(target, opts.connections, opts.warmupS);
  const cpuBefore = serverCpuMs?.();
  const writesBefore = serverWriteCalls?.();
  const r = await once(target, opts.connections, opts.durationS);
  const cpuAfter = serverCpuMs?.();
  const writesAfter = serverWriteCalls?.();
  // The requests still in flight when the run stops add their CPU but not their count: about one percent here.
  const answered = r.requests.total;
  const failures = r.non2xx + r.errors + r.timeouts;
  if (failures > 0) {
    // Which failures, so that a failed figure can be told from a refused request (a status) or a lost socket.
    const statuses = Object.entries(r.statusCodeStats ?? {})
      .filter(([code]) => !code.startsWith("2"))
      .map(([code, { count }]) => `${count}×${code}`);
    process.stderr.write(
      `load: ${failures} failed (${[...statuses, `${r.errors} errors`, `${r.timeouts} timeouts`].join(", ")})\n`,
    );
  }
  return {
    requestsPerSec: r.requests.average,
    p50Ms: r.latency.p50,
    p99Ms: r.latency.p99,
    requests: answered,
    failures,
    ...(cpuBefore !== undefined && cpuAfter !== undefined && answered > 0
      ? { cpuMsPerRequest: (cpuAfter - cpuBefore) / answered }
      : {}),
    ...(writesBefore !== undefined && writesAfter !== undefined && answered > 0
      ? { writeCallsPerRequest: (writesAfter - writesBefore) / answered }
      : {}),
  };
}
