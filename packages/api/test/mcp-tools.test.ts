import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MCP_PROMPTS } from "../src/mcp/prompts";
import { RESOURCE_TOOLS } from "../src/mcp/resource-tools";
import { MCP_TOOLS } from "../src/mcp/tools";
import { signUp, type TestUser } from "./helpers/clients";
import { PNG } from "./helpers/files";
import { OAuthApp } from "./helpers/oauth";
import type { TestServer } from "./helpers/server";
import { type Receiver, startReceiver, startWebhookServer } from "./helpers/webhooks";

let server: TestServer;
let receiver: Receiver;
let user: TestUser;
let app: OAuthApp;

const ALL_SCOPES = [
  "evaluations:read",
  "evaluations:write",
  "templates:read",
  "templates:write",
  "autousers:read",
  "autousers:write",
  "ratings:read",
  "ratings:write",
  "webhooks:read",
  "webhooks:write",
  "events:read",
].join(" ");

beforeAll(async () => {
  [server, receiver] = await Promise.all([startWebhookServer(), startReceiver()]);
  user = await signUp(server, "mcp-tools");
  app = await OAuthApp.discover(server);
});
afterAll(async () => {
  await Promise.all([server?.close(), receiver?.close()]);
});

async function connect(scope: string): Promise<Client> {
  const tokens = await app.token(user, { resource: `${server.url}/mcp`, scope });
  const client = new Client({ name: "rubricon-test", version: "1.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), {
      requestInit: { headers: { Authorization: `Bearer ${tokens.access_token}` } },
    }),
  );
  return client;
}

type Result = Awaited<ReturnType<Client["callTool"]>>;
const textOf = (result: Result) => JSON.parse((result.content as { type: string; text: string }[])[0]!.text);

/** Calls a tool that must succeed, and answers its output. */
async function ok(client: Client, name: string, args: Record<string, unknown>) {
  const result = await client.callTool({ name, arguments: args });
  if (result.isError) throw new Error(`${name} failed: ${JSON.stringify(textOf(result))}`);
  return textOf(result);
}

describe("listing", () => {
  it("lists a tool per resource family, each naming its route and scope, and the prompts", async () => {
    const client = await connect("evaluations:read");
    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name);
    expect(names).toEqual([...MCP_TOOLS, ...RESOURCE_TOOLS].map((t) => t.name));
    expect(new Set(names).size).toBe(names.length);
    expect(names.length).toBeGreaterThanOrEqual(38);
    for (const family of [
      "comparison",
      "template",
      "autouser",
      "rating",
      "share",
      "invite",
      "file",
      "webhook",
      "event",
    ]) {
      expect(
        names.some((n) => n.includes(family)),
        family,
      ).toBe(true);
    }
    for (const t of RESOURCE_TOOLS) {
      const listed = tools.find((l) => l.name === t.name)!;
      expect(listed.description).toMatch(/\((GET|POST|PATCH|DELETE) \/[^)]+\)\. Scope [a-z]+:(read|write)/);
      expect(listed.annotations?.readOnlyHint).toBe(listed.description!.includes("(GET "));
    }
    // The route's own input schema: path and body fields together, as the REST route takes them.
    const create = tools.find((t) => t.name === "create_comparison")!;
    expect(Object.keys(create.inputSchema.properties ?? {})).toEqual(expect.arrayContaining(["id", "url"]));

    const { prompts } = await client.listPrompts();
    expect(prompts.map((p) => p.name)).toEqual(MCP_PROMPTS.map((p) => p.name));
    expect(prompts).toHaveLength(5);
    const read = await client.getPrompt({ name: "read_results", arguments: { evaluationId: "eval_abc" } });
    const text = (read.messages[0]!.content as { text: string }).text;
    expect(text).toContain("eval_abc");
    for (const tool of text.match(/\b[a-z]+(?:_[a-z]+)+\b/g) ?? []) {
      if (tool.startsWith("get_") || tool.startsWith("list_")) expect(names).toContain(tool);
    }
    const setUp = await client.getPrompt({
      name: "set_up_evaluation",
      arguments: { goal: "Find checkout friction" },
    });
    expect((setUp.messages[0]!.content as { text: string }).text).toContain("Find checkout friction");
    await client.close();
  });
});

describe("a call per family", () => {
  it("works through evaluations, comparisons, templates, autousers, ratings, runs and people", async () => {
    const client = await connect(ALL_SCOPES);
    const evaluation = await ok(client, "create_evaluation", {
      name: "Parity",
      type: "SSE",
      designUrls: [{ url: "https://example.com/a" }],
    });

    const comparisons = await ok(client, "list_comparisons", { id: evaluation.id });
    expect(comparisons.data).toHaveLength(1);
    const first = await ok(client, "get_comparison", {
      id: evaluation.id,
      comparisonId: comparisons.data[0].id,
    });
    expect(first.id).toBe(comparisons.data[0].id);
    const added = await ok(client, "create_comparison", { id: evaluation.id, url: "https://example.com/b" });
    expect(added.object).toBe("comparison");

    const template = await ok(client, "create_template", { teamId: user.teamId, name: "Clarity" });
    expect(template.object).toBe("template");
    expect((await ok(client, "get_template", { id: template.id })).id).toBe(template.id);

    const persona = await ok(client, "create_autouser", { name: "Careful shopper", role: "Shopper" });
    expect(persona.object).toBe("autouser");
    expect((await ok(client, "get_autouser", { id: persona.id })).name).toBe("Careful shopper");
    // Optimising needs a completed calibration first: the tool answers the route's error.
    const early = await client.callTool({ name: "optimize_autouser_weights", arguments: { id: persona.id } });
    expect(early.isError).toBe(true);
    expect(textOf(early).error).toMatchObject({ code: "calibration_not_completed" });

    const running = await ok(client, "update_evaluation", { id: evaluation.id, status: "Running" });
    expect(running.status).toBe("Running");
    const rating = await ok(client, "create_rating", {
      id: evaluation.id,
      comparisonId: first.id,
      dimensionRatings: { overall: 4 },
    });
    expect(rating.object).toBe("rating");
    const ratings = await ok(client, "list_ratings", { id: evaluation.id });
    expect(ratings.data.map((r: { id: string }) => r.id)).toContain(rating.id);
    expect((await ok(client, "get_rating", { id: evaluation.id, ratingId: rating.id })).id).toBe(rating.id);

    await ok(client, "start_autousers", { id: evaluation.id, autouserIds: ["auto_first_time_visitor"] });
    const runs = await ok(client, "list_autouser_runs", { id: evaluation.id });
    expect(runs.data.length).toBeGreaterThan(0);
    const run = await ok(client, "get_autouser_run", { id: evaluation.id, runId: runs.data[0].id });
    expect(run.id).toBe(runs.data[0].id);
    await ok(client, "stop_autousers", { id: evaluation.id });

    const insights = await client.callTool({ name: "get_ai_insights", arguments: { id: evaluation.id } });
    // Either the insights or the route's own refusal (too few ratings), never an unexpected failure.
    if (insights.isError) expect(textOf(insights).error.type).not.toBe("api_error");
    else expect(textOf(insights)).toBeTypeOf("object");

    const colleague = await signUp(server, "mcp-colleague");
    const share = await ok(client, "create_share", { id: evaluation.id, userId: colleague.userId });
    expect(share.permission).toBe("VIEWER");
    expect((await ok(client, "list_shares", { id: evaluation.id })).data).toHaveLength(1);
    const invite = await ok(client, "create_invite", { id: evaluation.id, email: "newcomer@example.com" });
    expect(invite.email).toBe("newcomer@example.com");
    expect((await ok(client, "list_invites", { id: evaluation.id })).data).toHaveLength(1);
    await client.close();
  });

  it("works through files, webhooks and events", async () => {
    const client = await connect(ALL_SCOPES);
    const ticket = await ok(client, "init_file_upload", {
      filename: "shot.png",
      contentType: "image/png",
      size: PNG.length,
    });
    const pending = await client.callTool({ name: "get_file", arguments: { fileId: ticket.fileId } });
    expect(textOf(pending).error.code).toBe("file_not_ready");
    const put = await fetch(ticket.uploadUrl, {
      method: "PUT",
      headers: ticket.headers,
      body: new Blob([new Uint8Array(PNG)]),
    });
    expect(put.status).toBe(200);
    const ready = await ok(client, "finalize_file_upload", { fileId: ticket.fileId });
    expect(ready).toMatchObject({ id: ticket.fileId, status: "ready", size: PNG.length });
    const { location } = await ok(client, "get_file", { fileId: ticket.fileId });
    const bytes = Buffer.from(await (await fetch(location)).arrayBuffer());
    expect(bytes.equals(PNG)).toBe(true);

    const endpoint = await ok(client, "create_webhook", { url: receiver.url, enabled_events: ["*"] });
    expect(endpoint.secret).toMatch(/^whsec_/);
    expect((await ok(client, "list_webhooks", {})).data.map((e: { id: string }) => e.id)).toContain(
      endpoint.id,
    );
    expect((await ok(client, "get_webhook", { id: endpoint.id })).url).toBe(receiver.url);
    const test = await ok(client, "send_test_webhook", { id: endpoint.id, type: "evaluation.created" });
    expect(test.synthetic).toBe(true);
    const deliveries = await ok(client, "list_webhook_deliveries", { id: endpoint.id });
    expect(deliveries.data.map((d: { id: string }) => d.id)).toContain(test.deliveryId);

    await ok(client, "create_evaluation", {
      name: "Evented",
      type: "SSE",
      designUrls: [{ url: "https://example.com/a" }],
    });
    const log = await ok(client, "list_events", {});
    const created = log.data.find((e: { type: string }) => e.type === "evaluation.created");
    expect(created).toBeDefined();
    expect((await ok(client, "get_event", { id: created.id })).id).toBe(created.id);
    await client.close();
  });
});

describe("scopes", () => {
  it("refuses each family's tools without the route's scope, as REST does", async () => {
    const client = await connect("evaluations:read");
    for (const [name, args] of [
      ["create_comparison", { id: "eval_x", url: "https://example.com/a" }],
      ["create_template", { teamId: "team_x", name: "x" }],
      ["list_ratings", { id: "eval_x" }],
      ["create_webhook", { url: "https://example.com/h", enabled_events: ["*"] }],
      ["list_events", {}],
      ["get_autouser", { id: "auto_first_time_visitor" }],
    ] as const) {
      const refused = await client.callTool({ name, arguments: args });
      expect(refused.isError, name).toBe(true);
      expect(textOf(refused).error, name).toMatchObject({
        type: "authorization_error",
        code: "missing_required_scope",
      });
    }
    // The scope it has still works.
    expect(
      await ok(client, "list_comparisons", { id: "eval_doesnotexist" }).catch((e: Error) => e.message),
    ).toContain("evaluation_not_found");
    await client.close();
  });
});
