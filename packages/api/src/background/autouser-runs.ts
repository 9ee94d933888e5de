import {
  type AgentBrowser,
  createHeuristicJudge,
  createLlmJudge,
  createLlmPlanner,
  launchAgentBrowser,
  publicUrlsOnly,
} from "@rubricon/agents";
import { AutouserRunEngine, type RunEngineOptions } from "@rubricon/core";
import { createFileStorage } from "../files/storage";
import { runObserver } from "../observability/work";
import type { AppServices } from "../request/services";
import type { BackgroundLoop } from "./background-loop";

/** How soon a queued run is taken, at most, when this process has room (plus the time a busy pass takes). */
export const AUTOUSER_POLL_INTERVAL_MS = 250;

/** With `AUTOUSER_ALLOW_PRIVATE_URLS` (development and tests) any http(s) address may be visited. */
async function anyWebAddress(raw: string): Promise<boolean> {
  try {
    const url = new URL(raw);
    return ["http:", "https:", "data:", "blob:", "about:"].includes(url.protocol);
  } catch {
    return false;
  }
}

/**
 * Drives autouser runs: up to `AUTOUSER_CONCURRENCY` at once in this process, on one shared browser (local
 * Chromium, or `BROWSER_WS_ENDPOINT`) launched on first use: a new context for a run, or a cleared one an earlier
 * run of the same team left.
 */
export function autouserRunLoop(
  services: Pick<AppServices, "db" | "env" | "clock"> & Partial<Pick<AppServices, "runWaker" | "storage">>,
  overrides: Partial<RunEngineOptions> = {},
): BackgroundLoop & { engine: AutouserRunEngine } {
  const { env } = services;
  let browser: Promise<AgentBrowser> | null = null;
  const stop = new AbortController();
  const engine = new AutouserRunEngine({
    db: services.db,
    clock: services.clock,
    baseUrl: env.baseUrl,
    encryptionKey: env.encryptionKey,
    platformModel: env.platformModel,
    browser: () => {
      browser ??= launchAgentBrowser({
        chromiumPath: env.chromiumPath,
        wsEndpoint: env.browserWsEndpoint,
      }).catch((err: unknown) => {
        browser = null;
        throw err;
      });
      return browser;
    },
    judgeFor: (config) => (config ? createLlmJudge(config) : createHeuristicJudge()),
    plannerFor: (config) => createLlmPlanner(config),
    storage: services.storage ?? createFileStorage(env),
    isAllowedUrl: env.autouserAllowPrivateUrls ? anyWebAddress : publicUrlsOnly(),
    concurrency: env.autouserConcurrency,
    waker: services.runWaker,
    observer: runObserver,
    ...overrides,
  });
  return {
    name: "autousers",
    intervalMs: AUTOUSER_POLL_INTERVAL_MS,
    engine,
    leases: { queue: "autouser_runs", held: () => engine.held },
    async run() {
      const pass = await engine.runPass(stop.signal);
      const lines = pass.errors.map((e) => `autouser run not settled, its lease will run out: ${e}`);
      // What this process finished, so an operator (and the scale-out test) can see how work spreads.
      if (pass.completed + pass.failed > 0)
        lines.push(`autouser runs settled: ${pass.completed} completed, ${pass.failed} failed`);
      return lines.length > 0 ? lines.join("\n") : null;
    },
    interrupt: () => stop.abort(),
    close: () => {
      stop.abort();
      const open = browser;
      browser = null;
      void open?.then((b) => b.close()).catch(() => {});
    },
  };
}
