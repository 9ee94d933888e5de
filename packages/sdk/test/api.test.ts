import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from "vitest";
import {
  AuthenticationError,
  AuthorizationError,
  type Evaluation,
  InvalidRequestError,
  NotFoundError,
  type RatingWindow,
  Rubricon,
  SERVICE_VERSION,
  type Template,
  type TemplateVersion,
} from "../src";
import {
  createAccount,
  signAccessToken,
  startTestServer,
  type TestAccount,
  type TestServer,
} from "./helpers/api";

const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

let server: TestServer;
let account: TestAccount;
let rubricon: Rubricon;

beforeAll(async () => {
  server = await startTestServer();
  account = await createAccount(server);
  rubricon = new Rubricon({ apiKey: account.apiKey, baseUrl: server.api });
});
afterAll(() => server?.close());

/** Creates an evaluation and narrows the create result, which is a price quote instead when `dryRun` is set. */
async function createEvaluation(client: Rubricon, name: string): Promise<Evaluation> {
  const result = await client.evaluations.create({
    name,
    type: "SSE",
    designUrls: [{ url: "https://example.com/a" }],
  });
  if (!("id" in result)) throw new Error("expected an evaluation, got a dry-run quote");
  return result;
}

describe("identity", () => {
  it("authenticates with an API key", async () => {
    const me = await rubricon.auth.whoami();
    expect(me).toMatchObject({
      principal: "api_key",
      userId: account.userId,
      teamId: account.teamId,
      scopes: ["*"],
    });
  });

  it("authenticates with an OAuth access token", async () => {
    const accessToken = await signAccessToken(server, {
      sub: account.userId,
      team: account.teamId,
      scope: "evaluations:read",
    });
    const oauth = new Rubricon({ accessToken, baseUrl: server.api });
    expect(await oauth.auth.whoami()).toMatchObject({ principal: "oauth", teamId: account.teamId });
    await expect(oauth.evaluations.list()).resolves.toMatchObject({ object: "list" });
  });
});

describe("evaluations", () => {
  it("creates, retrieves, updates, lists and deletes, with typed results", async () => {
    const created = await createEvaluation(rubricon, "Checkout flow");
    expectTypeOf(created.status).toEqualTypeOf<"Draft" | "Running" | "Ended" | "Archived">();
    expect(created).toMatchObject({
      object: "evaluation",
      name: "Checkout flow",
      type: "SSE",
      status: "Draft",
    });

    const fetched = await rubricon.evaluations.retrieve(created.id);
    expectTypeOf(fetched).toEqualTypeOf<Evaluation>();
    expect(fetched.id).toBe(created.id);

    const updated = await rubricon.evaluations.update(created.id, { name: "Checkout flow v2" });
    expect(updated.name).toBe("Checkout flow v2");

    const comparisons = await rubricon.evaluations.comparisons.list(created.id);
    expect(comparisons.data).toHaveLength(1);
    const added = await rubricon.evaluations.comparisons.create(created.id, { url: "https://example.com/b" });
    const comparison = await rubricon.evaluations.comparisons.retrieve(created.id, added.id);
    expect(comparison.id).toBe(added.id);
    expect(await rubricon.evaluations.comparisons.del(created.id, added.id)).toEqual({
      id: added.id,
      deleted: true,
    });

    const page = await rubricon.evaluations.list({ limit: 100 });
    expect(page.data.map((e) => e.id)).toContain(created.id);

    expect(await rubricon.evaluations.delete(created.id)).toEqual({ id: created.id, deleted: true });
    await expect(rubricon.evaluations.retrieve(created.id)).rejects.toBeInstanceOf(NotFoundError);
  });

  it("checks argument types at compile time", () => {
    // Never called: tsc checks these lines when it type-checks the tests.
    const typeChecks = () => {
      // @ts-expect-error `type` is required
      void rubricon.evaluations.create({ name: "x" });
      // @ts-expect-error `status` is one of the states
      void rubricon.evaluations.list({ status: "Paused" });
      // @ts-expect-error the id comes first
      void rubricon.evaluations.comparisons.list({ limit: 1 });
    };
    expect(typeof typeChecks).toBe("function");
  });
});

describe("templates", () => {
  it("creates, versions, duplicates, reverts and deletes", async () => {
    const template = await rubricon.templates.create({ teamId: account.teamId, name: "Clarity" });
    expectTypeOf(template).toEqualTypeOf<Template>();
    expect(template).toMatchObject({ name: "Clarity", version: 1 });

    const updated = await rubricon.templates.update(template.id, { name: "Clarity of copy" });
    expect(updated.version).toBe(2);

    const versions: TemplateVersion[] = [];
    for await (const version of rubricon.templates.versions.list(template.id, { limit: 1 }))
      versions.push(version);
    expect(versions.map((v) => v.version)).toEqual([2, 1]);

    const copy = await rubricon.templates.duplicate(template.id, { name: "Clarity (copy)" });
    expect(copy.id).not.toBe(template.id);

    const reverted = await rubricon.templates.revert(template.id, { versionId: versions[1]!.id });
    expect(reverted).toMatchObject({ name: "Clarity", version: 3 });

    expect(await rubricon.templates.del(copy.id)).toEqual({ id: copy.id, deleted: true });
  });

  it("still serves the deprecated dimensions alias", async () => {
    const template = await rubricon.templates.create({ teamId: account.teamId, name: "Legacy" });
    expect((await rubricon.dimensions.retrieve(template.id)).id).toBe(template.id);
  });
});

describe("pagination", () => {
  let fresh: Rubricon;
  let ids: string[];
  let requests: string[];

  beforeAll(async () => {
    // A team of its own, so the list holds exactly the evaluations made here.
    const other = await createAccount(server);
    requests = [];
    fresh = new Rubricon({
      apiKey: other.apiKey,
      baseUrl: server.api,
      fetch: (url, init) => {
        requests.push(url);
        return fetch(url, init);
      },
    });
    ids = [];
    for (let i = 0; i < 7; i++) ids.push((await createEvaluation(fresh, `Eval ${i}`)).id);
    ids.reverse();
  });

  it("awaits to the first page and iterates across all pages", async () => {
    requests.length = 0;
    const first = await fresh.evaluations.list({ limit: 3 });
    expect(first.data.map((e) => e.id)).toEqual(ids.slice(0, 3));
    expect(first.has_more).toBe(true);

    requests.length = 0;
    const seen: string[] = [];
    for await (const evaluation of fresh.evaluations.list({ limit: 3 })) {
      expectTypeOf(evaluation).toEqualTypeOf<Evaluation>();
      seen.push(evaluation.id);
    }
    expect(seen).toEqual(ids);
    expect(requests).toHaveLength(3);
    expect(requests[1]).toContain(`starting_after=${ids[2]}`);
    expect(requests[2]).toContain(`starting_after=${ids[5]}`);
  });

  it("fetches the first page once however the page promise is used", async () => {
    requests.length = 0;
    const list = fresh.evaluations.list({ limit: 3 });
    await list;
    const pages = [];
    for await (const page of list.pages()) pages.push(page.data.length);
    expect(pages).toEqual([3, 3, 1]);
    expect(requests).toHaveLength(3);
  });

  it("collects with toArray, which requires a limit and stops fetching at it", async () => {
    requests.length = 0;
    const some = await fresh.evaluations.list({ limit: 3 }).toArray({ limit: 5 });
    expect(some.map((e) => e.id)).toEqual(ids.slice(0, 5));
    expect(requests).toHaveLength(2);
    // @ts-expect-error the limit is required
    expect(() => fresh.evaluations.list().toArray()).toThrow(/limit/);
    expect(() => fresh.evaluations.list().toArray({ limit: 0 })).toThrow(TypeError);
  });

  it("walks backwards from ending_before", async () => {
    const seen: string[] = [];
    for await (const e of fresh.evaluations.list({ limit: 2, ending_before: ids[6] })) seen.push(e.id);
    expect(seen).toEqual(ids.slice(0, 6).reverse());
  });
});

describe("errors", () => {
  it("throws NotFoundError with code, status and the request id", async () => {
    const error = await rubricon.evaluations.retrieve("eval_doesnotexist").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NotFoundError);
    const e = error as NotFoundError;
    expect(e).toMatchObject({ status: 404, type: "not_found_error", code: "evaluation_not_found" });
    expect(e.message).toMatch(/eval_doesnotexist/);
    expect(e.requestId).toMatch(UUID_V7);
    expect(e.requestId).toBe(e.headers?.get("x-request-id"));
    expect(e.raw).toMatchObject({ error: { request_id: e.requestId } });
  });

  it("throws InvalidRequestError naming the param", async () => {
    const error = await rubricon.evaluations.list({ limit: 500 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidRequestError);
    expect(error).toMatchObject({ status: 400, type: "invalid_request_error", param: "limit" });

    const invalid = await rubricon.evaluations
      .create({ name: "x", type: "Nope" as "SSE" })
      .catch((e: unknown) => e);
    expect(invalid).toMatchObject({ status: 400, param: "type" });
  });

  it("throws AuthenticationError for a bad key and AuthorizationError for a missing scope", async () => {
    const bad = new Rubricon({ apiKey: "ak_live_nope", baseUrl: server.api });
    await expect(bad.evaluations.list()).rejects.toBeInstanceOf(AuthenticationError);

    const readOnly = new Rubricon({ apiKey: await account.mintKey(["templates:read"]), baseUrl: server.api });
    const error = await readOnly.evaluations.list().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AuthorizationError);
    expect(error).toMatchObject({ status: 403, code: "missing_required_scope" });
  });

  it("maps 405 to InvalidRequestError through the generic request()", async () => {
    const error = await rubricon.request("PUT", "/evaluations").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidRequestError);
    expect(error).toMatchObject({ status: 405, code: "method_not_allowed" });
  });
});

describe("idempotency", () => {
  /**
   * A loopback proxy in front of the API that forwards the first POST, lets the API create the resource, and
   * then resets the client's connection instead of answering: the response is lost, as on a flaky network.
   */
  async function startLossyProxy(target: string) {
    const seen: { key: string | undefined; replayed: string | null }[] = [];
    let dropped = false;
    const proxy: Server = createServer(async (req, res) => {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const headers = new Headers();
      for (const [name, value] of Object.entries(req.headers)) {
        if (typeof value === "string" && !["host", "connection", "content-length"].includes(name)) {
          headers.set(name, value);
        }
      }
      const upstream = await fetch(`${target}${req.url}`, {
        method: req.method,
        headers,
        body: chunks.length > 0 ? Buffer.concat(chunks) : undefined,
      });
      const body = await upstream.text();
      seen.push({
        key: req.headers["idempotency-key"] as string | undefined,
        replayed: upstream.headers.get("idempotent-replayed"),
      });
      if (req.method === "POST" && !dropped) {
        dropped = true;
        req.socket.destroy();
        return;
      }
      res.writeHead(upstream.status, {
        "Content-Type": upstream.headers.get("content-type") ?? "application/json",
      });
      res.end(body);
    });
    await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
    const { port } = proxy.address() as AddressInfo;
    return {
      url: `http://127.0.0.1:${port}`,
      seen,
      close: () =>
        new Promise<void>((resolve) => {
          proxy.closeAllConnections();
          proxy.close(() => resolve());
        }),
    };
  }

  it("retries a POST whose response was lost with the same key, and the API creates one resource", async () => {
    const other = await createAccount(server);
    const origin = new URL(server.api).origin;
    const proxy = await startLossyProxy(origin);
    try {
      const client = new Rubricon({ apiKey: other.apiKey, baseUrl: `${proxy.url}/api/v1` });
      const created = await createEvaluation(client, "Once only");
      expect(proxy.seen).toHaveLength(2);
      const [first, second] = proxy.seen;
      expect(first!.key).toMatch(/^[0-9a-f-]{36}$/);
      expect(second!.key).toBe(first!.key);
      expect(second!.replayed).toBe("true");
      const all = await client.evaluations.list({ limit: 100 }).toArray({ limit: 100 });
      expect(all.map((e) => e.id)).toEqual([created.id]);
    } finally {
      await proxy.close();
    }
  });

  it("retries after a 503 with the same key, through a fetch hook", async () => {
    const other = await createAccount(server);
    const keys: (string | null)[] = [];
    const client = new Rubricon({
      apiKey: other.apiKey,
      baseUrl: server.api,
      fetch: async (url, init) => {
        const key = new Headers(init.headers).get("idempotency-key");
        if (init.method === "POST") keys.push(key);
        if (init.method === "POST" && keys.length === 1) {
          return new Response(
            JSON.stringify({ error: { type: "api_error", message: "busy", request_id: "r" } }),
            {
              status: 503,
              headers: { "Content-Type": "application/json", "Retry-After": "0" },
            },
          );
        }
        return fetch(url, init);
      },
    });
    await createEvaluation(client, "After a 503");
    expect(keys).toHaveLength(2);
    expect(keys[1]).toBe(keys[0]);
    expect((await client.evaluations.list()).data).toHaveLength(1);
  });

  it("replays a call made again with the caller's own key", async () => {
    const key = `order-${Date.now()}`;
    const body = { name: "Mine", type: "SSE" as const };
    const first = await rubricon.evaluations.create(body, { idempotencyKey: key });
    const again = await rubricon.evaluations.create(body, { idempotencyKey: key });
    expect(again).toEqual(first);
  });
});

describe("service version", () => {
  it("sends the version it was generated for, and its types describe what that version answers", async () => {
    let sent: string | null = null;
    let answered: string | null = null;
    const client = new Rubricon({
      apiKey: account.apiKey,
      baseUrl: server.api,
      fetch: async (url, init) => {
        sent = new Headers(init.headers).get("service-version");
        const res = await fetch(url, init);
        answered = res.headers.get("service-version");
        return res;
      },
    });
    expect(SERVICE_VERSION).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    const created = await client.evaluations.create({
      name: "Versioned",
      type: "SSE",
      designUrls: [{ url: "https://example.com/a" }],
      ratingDeadline: "2030-01-02T03:04:05.000Z",
      targetRatingsPerComparison: 4,
    });
    if (!("id" in created)) throw new Error("expected an evaluation");
    expect(sent).toBe(SERVICE_VERSION);
    expect(answered).toBe(SERVICE_VERSION);
    const got = await client.evaluations.retrieve(created.id);
    expectTypeOf(got.ratingWindow).toEqualTypeOf<RatingWindow>();
    expect(got.ratingWindow).toEqual({ closesAt: "2030-01-02T03:04:05.000Z", targetRatingsPerComparison: 4 });
    expect(got).not.toHaveProperty("ratingDeadline");
  });

  it("round-trips under an older version it is pinned to, in that version's shape", async () => {
    let answered: string | null = null;
    const pinned = new Rubricon({
      apiKey: account.apiKey,
      baseUrl: server.api,
      serviceVersion: "2026-11-01",
      fetch: async (url, init) => {
        const res = await fetch(url, init);
        answered = res.headers.get("service-version");
        return res;
      },
    });
    const created = await pinned.evaluations.create({
      name: "Pinned",
      type: "SSE",
      designUrls: [{ url: "https://example.com/a" }],
      targetRatingsPerComparison: 2,
    });
    if (!("id" in created)) throw new Error("expected an evaluation");
    expect(answered).toBe("2026-11-01");
    const got = (await pinned.evaluations.retrieve(created.id)) as unknown as Record<string, unknown>;
    expect(got).toMatchObject({ id: created.id, ratingDeadline: null, targetRatingsPerComparison: 2 });
    expect(got).not.toHaveProperty("ratingWindow");
    // The same evaluation through the SDK's own version is the newest shape again.
    expect((await rubricon.evaluations.retrieve(created.id)).ratingWindow).toEqual({
      closesAt: null,
      targetRatingsPerComparison: 2,
    });
  });

  it("an unknown version is a typed 400 naming the known ones", async () => {
    const wrong = new Rubricon({ apiKey: account.apiKey, baseUrl: server.api, serviceVersion: "2026-01-01" });
    const err = await wrong.auth.whoami().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InvalidRequestError);
    expect(err).toMatchObject({ status: 400, code: "api_version_unknown", param: "Service-Version" });
    expect((err as Error).message).toContain("2026-11-01, 2026-11-25");
  });
});

describe("autouser calibration", () => {
  it("optimize answers the API's errors as typed errors: 409 before any calibration, 404 for no autouser", async () => {
    const autouser = await rubricon.autousers.create({ name: "Dana", role: "Online shopper" });
    const early = await rubricon.autousers.calibration.optimize(autouser.id).catch((e: unknown) => e);
    expect(early).toBeInstanceOf(InvalidRequestError);
    expect(early).toMatchObject({ status: 409, code: "calibration_not_completed" });
    const missing = await rubricon.autousers.calibration.optimize("auto_missing").catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(NotFoundError);
    expect(missing).toMatchObject({ status: 404, code: "autouser_not_found" });
  });
});
