import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { autouserRunLoop, startLoops } from "@rubricon/api";
import { startTestServer, type TestServer } from "@rubricon/api/testing";
import { setTeamPlan } from "@rubricon/core";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { PluginController, TOKEN_KEY } from "../src/controller";
import { FakeFrame, FigmaDouble } from "./helpers/figma-double";

let server: TestServer;
// The pairing routes allow 10 requests a minute per address; each test pairs in a fresh minute.
let offsetMs = 0;
const clock = { now: () => new Date(Date.now() + offsetMs) };

interface Account {
  email: string;
  cookie: string;
  teamId: string;
}

async function signUp(label: string): Promise<Account> {
  const email = `${label}-${Date.now()}-${Math.random().toString(16).slice(2, 8)}@example.com`;
  const res = await fetch(`${server.url}/api/auth/sign-up`, {
    method: "POST",
    headers: { "Content-Type": "application/json", Origin: server.url },
    body: JSON.stringify({ email, password: "correct horse battery", name: label }),
  });
  if (res.status !== 201) throw new Error(`sign-up failed: ${res.status} ${await res.text()}`);
  const { teamId } = (await res.json()) as { teamId: string };
  const { services } = server.app;
  await setTeamPlan({ db: services.db, clock: services.clock, baseUrl: services.env.baseUrl }, teamId, "pro");
  return { email, teamId, cookie: res.headers.getSetCookie()[0]!.split(";")[0]! };
}

/** What the user does in the dashboard: approve the code the plugin shows. */
async function approve(account: Account, code: string): Promise<void> {
  const res = await fetch(`${server.api}/auth/figma/pair/${encodeURIComponent(code)}/approve`, {
    method: "POST",
    headers: { Cookie: account.cookie, Origin: server.url, "Content-Type": "application/json" },
  });
  expect(res.status).toBe(200);
}

async function get<T>(token: string, path: string): Promise<T> {
  const res = await fetch(`${server.api}${path}`, { headers: { Authorization: `Bearer ${token}` } });
  expect(res.status, await res.clone().text()).toBe(200);
  return (await res.json()) as T;
}

const quick = () => new Promise<void>((r) => setTimeout(r, 200));

/** A plugin paired with `account`, as after the first run in the editor. */
async function pairedPlugin(account: Account) {
  const figma = new FigmaDouble();
  const plugin = new PluginController(figma, { server: server.url, sleep: quick, progressIntervalS: 0.3 });
  await plugin.handle({ type: "ready" });
  const shown = figma.next<{ code: string; verificationUrl: string }>("pairing");
  const paired = plugin.handle({ type: "pair" });
  const { code, verificationUrl } = await shown;
  expect(verificationUrl).toBe(`${server.url}/pair?code=${code}`);
  await approve(account, code);
  await paired;
  return { figma, plugin };
}

beforeAll(async () => {
  server = await startTestServer({
    clock,
    env: {
      // Autousers open the uploaded frames at signed links of this loopback server.
      AUTOUSER_ALLOW_PRIVATE_URLS: "true",
      DATA_DIR: mkdtempSync(join(tmpdir(), "rubricon-figma-")),
    },
  });
});
beforeEach(() => {
  offsetMs += 2 * 60 * 1000;
});
afterAll(() => server?.close());

describe("the design-tool plugin against a real server", () => {
  it("pairs with a code, keeps the 7-day token, shows the user and team, and signs out", async () => {
    const account = await signUp("designer");
    const { figma, plugin } = await pairedPlugin(account);

    expect(figma.posted[0]).toEqual({ type: "selection", frames: [] });
    expect(figma.posted[1]).toEqual({ type: "signed-out", server: server.url });
    const signedIn = figma.last<{ user: { email: string; teamId: string; teamName: string } }>("signed-in");
    expect(signedIn?.user).toMatchObject({ email: account.email, teamId: account.teamId });
    expect(signedIn?.user.teamName.length).toBeGreaterThan(0);
    const stored = figma.storage.get(TOKEN_KEY) as { token: string; expiresAt: string };
    const days = (new Date(stored.expiresAt).getTime() - clock.now().getTime()) / 86_400_000;
    expect(days).toBeGreaterThan(6.99);
    expect(days).toBeLessThanOrEqual(7);
    expect(plugin.user?.email).toBe(account.email);

    // The next session starts signed in from storage, without pairing again.
    const again = new FigmaDouble();
    again.storage.set(TOKEN_KEY, stored);
    await new PluginController(again, { server: server.url }).handle({ type: "ready" });
    expect(again.last("signed-in")).toMatchObject({ user: { email: account.email } });

    await plugin.handle({ type: "sign-out" });
    expect(figma.storage.has(TOKEN_KEY)).toBe(false);
    expect(figma.posted.at(-1)).toEqual({ type: "signed-out", server: server.url });
  });

  it("evaluates two selected frames as SSE with autousers, then follows their progress and scores", async () => {
    const account = await signUp("sse");
    const { figma, plugin } = await pairedPlugin(account);
    const login = new FakeFrame("1:2", "Login", 200, 150, [37, 99, 235]);
    const checkout = new FakeFrame("1:3", "Checkout / step 2", 200, 150, [22, 163, 74]);
    const note = new FakeFrame("1:4", "Sticky note", 50, 50, [250, 204, 21], "STICKY");
    figma.currentPage.selection = [login, note, checkout];
    plugin.selectionChanged();
    expect(figma.last("selection")).toEqual({
      type: "selection",
      frames: [
        { id: "1:2", name: "Login" },
        { id: "1:3", name: "Checkout / step 2" },
      ],
    });

    await plugin.handle({ type: "load-options", kind: "SSE" });
    const options = figma.last<{ templates: { id: string; name: string }[]; autousers: { id: string }[] }>(
      "options",
    )!;
    expect(options.templates[0]).toEqual({ id: "overall", name: "Overall quality" });
    const persona = options.autousers.find((a) => a.id === "auto_first_time_visitor");
    expect(persona).toBeDefined();

    const loops = startLoops(
      [autouserRunLoop(server.app.services, { heartbeatMs: 250, pollMs: 50 })],
      () => {},
    );
    try {
      await plugin.handle({
        type: "evaluate",
        kind: "SSE",
        name: "Sign-up flow",
        templateId: options.templates[0]!.id,
        autouserIds: ["auto_first_time_visitor"],
        status: "Running",
      });
    } finally {
      await loops.stop();
    }
    expect(figma.last("error")).toBeUndefined();
    expect(login.exports).toEqual([{ format: "PNG", scale: 2 }]);
    expect(note.exports).toEqual([]);

    const created = figma.last<{
      evaluation: { id: string; status: string; editUrl: string; resultsUrl: string; runIds: string[] };
    }>("created")!.evaluation;
    expect(created.status).toBe("Running");
    expect(created.runIds).toHaveLength(1);
    expect(created.resultsUrl.startsWith(`${server.url}/`)).toBe(true);

    const token = (figma.storage.get(TOKEN_KEY) as { token: string }).token;
    const comparisons = await get<{
      data: { name: string; stimulus: { kind: string; fileId: string; stimulusType: string } }[];
    }>(token, `/evaluations/${created.id}/comparisons`);
    expect(comparisons.data.map((c) => [c.name, c.stimulus.kind, c.stimulus.stimulusType])).toEqual([
      ["Login", "single", "IMAGE"],
      ["Checkout / step 2", "single", "IMAGE"],
    ]);
    // The uploaded file is the frame's 2× export, byte for byte.
    const fileRes = await fetch(`${server.api}/files/${comparisons.data[0]!.stimulus.fileId}`, {
      headers: { Authorization: `Bearer ${token}` },
    });
    expect(fileRes.status).toBe(200);
    const bytes = new Uint8Array(await fileRes.arrayBuffer());
    expect(
      Buffer.from(bytes).equals(
        Buffer.from(await login.exportAsync({ format: "PNG", constraint: { type: "SCALE", value: 2 } })),
      ),
    ).toBe(true);
    // The PNG's width: the 200-pixel frame exported at twice its size.
    expect(Buffer.from(bytes).readUInt32BE(16)).toBe(400);

    const progress = figma.posted.filter((m) => m.type === "progress") as unknown as {
      progress: {
        done: boolean;
        progress: number;
        ratingsCreated: number;
        scores: { n: number; value: number | null }[];
      };
    }[];
    expect(progress.length).toBeGreaterThan(0);
    const final = progress.at(-1)!.progress;
    expect(final).toMatchObject({ done: true, progress: 1, ratingsCreated: 2, failed: 0 });
    expect(final.scores[0]!.n).toBe(2);
    expect(final.scores[0]!.value).toEqual(expect.any(Number));

    await plugin.handle({ type: "open", url: created.resultsUrl });
    expect(figma.opened).toEqual([created.resultsUrl]);
    await plugin.handle({ type: "open", url: "https://elsewhere.example/" });
    expect(figma.opened).toHaveLength(1);
    expect(figma.last("error")).toEqual({
      type: "error",
      message: "Only pages of the Rubricon server open from here.",
    });
  }, 300_000);

  it("makes a side-by-side Draft from exactly two frames", async () => {
    const account = await signUp("sxs");
    const { figma, plugin } = await pairedPlugin(account);
    const a = new FakeFrame("2:1", "Pricing A", 120, 90, [220, 38, 38]);
    const b = new FakeFrame("2:2", "Pricing B", 120, 90, [124, 58, 237]);
    await plugin.handle({ type: "load-options", kind: "SxS" });
    const templates = figma.last<{ templates: { id: string }[] }>("options")!.templates;

    figma.currentPage.selection = [a];
    await plugin.handle({
      type: "evaluate",
      kind: "SxS",
      name: "",
      templateId: templates[0]!.id,
      autouserIds: [],
      status: "Draft",
    });
    expect(figma.last("error")).toEqual({
      type: "error",
      message: "A side-by-side evaluation compares two frames: select exactly two.",
    });
    expect(figma.toasts.at(-1)).toEqual({
      message: "A side-by-side evaluation compares two frames: select exactly two.",
      error: true,
    });

    figma.currentPage.selection = [a, b];
    await plugin.handle({
      type: "evaluate",
      kind: "SxS",
      name: "",
      templateId: templates[0]!.id,
      autouserIds: [],
      status: "Draft",
    });
    const created = figma.last<{
      evaluation: { id: string; name: string; status: string; runIds: string[] };
    }>("created")!.evaluation;
    expect(created).toMatchObject({ name: "Pricing A, Pricing B", status: "Draft", runIds: [] });
    const token = (figma.storage.get(TOKEN_KEY) as { token: string }).token;
    const comparisons = await get<{
      data: { stimulus: { kind: string; sideA: { fileId: string }; sideB: { fileId: string } } }[];
    }>(token, `/evaluations/${created.id}/comparisons`);
    expect(comparisons.data).toHaveLength(1);
    expect(comparisons.data[0]!.stimulus.kind).toBe("pair");
    expect(comparisons.data[0]!.stimulus.sideA.fileId).not.toBe(comparisons.data[0]!.stimulus.sideB.fileId);
    expect(figma.posted.some((m) => m.type === "progress")).toBe(false);
  });

  it("says what went wrong in its own words: quota, expired or revoked sign-in", async () => {
    const account = await signUp("limits");
    const { figma, plugin } = await pairedPlugin(account);
    // On the Free plan a team creates 5 evaluations a month; this one has used them.
    const { services } = server.app;
    await setTeamPlan(
      { db: services.db, clock: services.clock, baseUrl: services.env.baseUrl },
      account.teamId,
      "free",
    );
    const token = (figma.storage.get(TOKEN_KEY) as { token: string }).token;
    for (let i = 0; i < 5; i++) {
      const res = await fetch(`${server.api}/evaluations`, {
        method: "POST",
        headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
        body: JSON.stringify({ name: `E${i}`, type: "SSE", designUrls: [{ url: "https://example.com/" }] }),
      });
      expect(res.status).toBe(201);
    }
    await plugin.handle({ type: "load-options", kind: "SSE" });
    figma.currentPage.selection = [new FakeFrame("3:1", "Home", 80, 60, [0, 0, 0])];
    await plugin.handle({
      type: "evaluate",
      kind: "SSE",
      name: "Home",
      templateId: figma.last<{ templates: { id: string }[] }>("options")!.templates[0]!.id,
      autouserIds: [],
      status: "Draft",
    });
    expect(figma.last("error")).toEqual({
      type: "error",
      message: "Your team has used this month's quota. Upgrade the plan or wait for next month.",
    });
    expect(figma.storage.has(TOKEN_KEY)).toBe(true);

    // A token past its 7 days is dropped before any request: pair again.
    const expired = new FigmaDouble();
    expired.storage.set(TOKEN_KEY, { token: "x.y.z", expiresAt: new Date(Date.now() - 1000).toISOString() });
    await new PluginController(expired, { server: server.url }).handle({ type: "ready" });
    expect(expired.storage.has(TOKEN_KEY)).toBe(false);
    expect(expired.last("signed-out")).toEqual({
      type: "signed-out",
      server: server.url,
      reason: "Your sign-in expired after 7 days. Pair again to continue.",
    });

    // A token the server no longer accepts: the plugin says so and goes back to pairing.
    const revoked = new FigmaDouble();
    revoked.storage.set(TOKEN_KEY, {
      token: "not-a-token",
      expiresAt: new Date(Date.now() + 86_400_000).toISOString(),
    });
    await new PluginController(revoked, { server: server.url }).handle({ type: "ready" });
    await new Promise((r) => setTimeout(r, 50));
    expect(revoked.last("error")).toEqual({
      type: "error",
      message: "Your sign-in has expired or was revoked. Pair again to continue.",
    });
    expect(revoked.storage.has(TOKEN_KEY)).toBe(false);
    expect(revoked.last("signed-out")).toMatchObject({
      reason: "Your sign-in has expired or was revoked. Pair again to continue.",
    });
  });
});
