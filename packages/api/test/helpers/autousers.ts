import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Evaluation, RunAutousersResult } from "@rubricon/contracts";
import type { RunEngineOptions } from "@rubricon/core";
import { autousers, newId, type PersonaRow } from "@rubricon/db";
import { autouserRunLoop } from "../../src/background/autouser-runs";
import { type RunningLoops, startLoops } from "../../src/background/loops";
import { bearer, bodyOf, call } from "./clients";
import { startTestServer, type TestServer, type TestServerOptions } from "./server";
import { nextEvent, type OpenStream, openStream } from "./sse";

export const DESKTOP_PERSONA: PersonaRow = {
  description: "Shops online most weeks and expects pages to be quick and plain.",
  goals: ["Find the price", "Check out quickly"],
  traits: ["impatient"],
  expertise: "intermediate",
  accessibilityNeeds: [],
  device: { kind: "desktop", viewport: { width: 1280, height: 800 }, network: "fast" },
};

/** A server whose autouser browsers may open the loopback fixture site, keeping files (run screenshots among them) in a fresh directory. */
export function startAutouserServer(opts: TestServerOptions = {}): Promise<TestServer> {
  return startTestServer({
    ...opts,
    env: {
      AUTOUSER_ALLOW_PRIVATE_URLS: "true",
      DATA_DIR: mkdtempSync(join(tmpdir(), "rubricon-runs-")),
      ...opts.env,
    },
  });
}

/** An autouser of the team (or a system persona with `teamId` null), written straight to its table. */
export async function insertAutouser(
  server: TestServer,
  teamId: string | null,
  name = "Dana the shopper",
): Promise<string> {
  const id = newId("autouser");
  await server.database.db.insert(autousers).values({
    id,
    teamId,
    isSystem: teamId === null,
    name,
    role: "Online shopper",
    persona: DESKTOP_PERSONA,
    status: "published",
    visibility: teamId === null ? "public" : "private",
  });
  return id;
}

/** The autouser loop of a worker in this process, stopped by the test. */
export function startRunLoop(server: TestServer, overrides: Partial<RunEngineOptions> = {}): RunningLoops {
  const loop = autouserRunLoop(server.app.services, { heartbeatMs: 250, pollMs: 50, ...overrides });
  return startLoops([loop], () => {});
}

export async function createEvaluationFor(
  server: TestServer,
  key: string,
  body: Record<string, unknown>,
): Promise<Evaluation> {
  const res = await call(Evaluation, `${server.api}/evaluations`, {
    method: "POST",
    headers: bearer(key),
    body,
  });
  if (res.status !== 201)
    throw new Error(`create evaluation failed: ${res.status} ${JSON.stringify(res.body)}`);
  return bodyOf(res);
}

export function runAutousers(
  server: TestServer,
  key: string,
  evaluationId: string,
  body: Record<string, unknown>,
  headers: Record<string, string> = {},
) {
  return call(RunAutousersResult, `${server.api}/evaluations/${evaluationId}/run-autousers`, {
    method: "POST",
    headers: { ...bearer(key), ...headers },
    body,
  });
}

export interface StreamEvent {
  id?: string;
  event?: string;
  data?: unknown;
}

/** Every event of the stream until the server ends it (after `done`), with a time limit. */
export async function readUntilEnd(stream: OpenStream, timeoutMs = 60_000): Promise<StreamEvent[]> {
  const seen: StreamEvent[] = [];
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const left = deadline - Date.now();
    if (left <= 0) throw new Error(`stream did not end in time; saw ${seen.map((e) => e.event).join(",")}`);
    const frame = await Promise.race([
      nextEvent(stream),
      new Promise<"late">((resolve) => setTimeout(() => resolve("late"), left)),
    ]);
    if (frame === "late") continue;
    if (frame === null) return seen;
    seen.push(frame);
  }
}

/** Reads until an event of `name` arrives, and answers everything read so far. */
export async function readUntil(
  stream: OpenStream,
  name: string,
  timeoutMs = 60_000,
): Promise<StreamEvent[]> {
  const seen: StreamEvent[] = [];
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const frame = await nextEvent(stream);
    if (frame === null)
      throw new Error(
        `stream ended before ${name}; saw ${JSON.stringify(seen.map((e) => [e.event, (e.data as { run?: { error?: string } })?.run?.error]))}`,
      );
    seen.push(frame);
    if (frame.event === name) return seen;
  }
  throw new Error(`no ${name} event in time`);
}

export function openRunStream(server: TestServer, key: string, evaluationId: string, lastEventId?: string) {
  return openStream(`${server.api}/evaluations/${evaluationId}/autouser-stream`, {
    ...bearer(key),
    ...(lastEventId ? { "Last-Event-ID": lastEventId } : {}),
  });
}
