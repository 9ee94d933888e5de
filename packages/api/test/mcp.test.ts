import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mintApiKey, signUp, type TestUser } from "./helpers/clients";
import { OAuthApp } from "./helpers/oauth";
import { startTestServer, type TestServer } from "./helpers/server";

let server: TestServer;
let user: TestUser;
let app: OAuthApp;

beforeAll(async () => {
  server = await startTestServer();
  user = await signUp(server, "mcp");
  app = await OAuthApp.discover(server);
});
afterAll(() => server?.close());

async function connect(token: string): Promise<Client> {
  const client = new Client({ name: "rubricon-test", version: "1.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), {
      requestInit: { headers: { Authorization: `Bearer ${token}` } },
    }),
  );
  return client;
}

const textOf = (result: Awaited<ReturnType<Client["callTool"]>>) =>
  JSON.parse((result.content as { type: string; text: string }[])[0]!.text);

describe("authentication", () => {
  it("answers 401 with the resource metadata URL to a caller without an /mcp token", async () => {
    const anonymous = await fetch(`${server.url}/mcp`, {
      method: "POST",
      headers: { "Content-Type": "application/json", Accept: "application/json, text/event-stream" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    });
    expect(anonymous.status).toBe(401);
    const challenge = anonymous.headers.get("www-authenticate")!;
    expect(challenge).toContain(`resource_metadata="${server.url}/.well-known/oauth-protected-resource/mcp"`);
    const metadata = await (await fetch(`${server.url}/.well-known/oauth-protected-resource/mcp`)).json();
    expect(metadata).toMatchObject({ resource: `${server.url}/mcp`, authorization_servers: [server.url] });

    // Neither a token for the REST API nor an API key opens the MCP server.
    const restToken = await app.token(user, { scope: "evaluations:read" });
    const apiKey = await mintApiKey(server, user, ["*"]);
    for (const token of [restToken.access_token, apiKey]) {
      const res = await fetch(`${server.url}/mcp`, {
        method: "POST",
        headers: {
          Authorization: `Bearer ${token}`,
          "Content-Type": "application/json",
          Accept: "application/json, text/event-stream",
        },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
      });
      expect(res.status).toBe(401);
      expect(res.headers.get("www-authenticate")).toContain('error="invalid_token"');
      expect((await res.json()).error.type).toBe("authentication_error");
    }
  });
});

describe("tools", () => {
  it("lists the tools and creates an evaluation that the REST API then shows", async () => {
    const tokens = await app.token(user, {
      resource: `${server.url}/mcp`,
      scope: "evaluations:read evaluations:write templates:read",
    });
    const client = await connect(tokens.access_token);
    const { tools } = await client.listTools();
    // The whole list, families and all, is checked in mcp-tools.test.ts.
    expect(tools.map((t) => t.name)).toEqual(
      expect.arrayContaining([
        "autouser_status",
        "create_evaluation",
        "draft_autouser_from_prompt",
        "draft_template_from_prompt",
        "edit_draft_evaluation",
        "get_agreement",
        "get_evaluation",
        "get_results",
        "list_autousers",
        "list_evaluations",
        "list_templates",
        "optimize_autouser_weights",
        "start_autousers",
        "stop_autousers",
      ]),
    );
    expect(tools.find((t) => t.name === "create_evaluation")!.inputSchema.properties).toHaveProperty(
      "designUrls",
    );

    const created = await client.callTool({
      name: "create_evaluation",
      arguments: {
        name: "Checkout via MCP",
        type: "SSE",
        designUrls: [{ url: "https://example.com/a" }, { url: "https://example.com/b" }],
      },
    });
    expect(created.isError).toBeFalsy();
    const evaluation = textOf(created);
    expect(evaluation).toMatchObject({ object: "evaluation", name: "Checkout via MCP", teamId: user.teamId });

    const listed = textOf(await client.callTool({ name: "list_evaluations", arguments: {} }));
    expect(listed.data.map((e: { id: string }) => e.id)).toContain(evaluation.id);
    const one = textOf(await client.callTool({ name: "get_evaluation", arguments: { id: evaluation.id } }));
    expect(one.id).toBe(evaluation.id);
    const results = await client.callTool({ name: "get_results", arguments: { id: evaluation.id } });
    expect(results.isError).toBeFalsy();
    const agreement = await client.callTool({ name: "get_agreement", arguments: { id: evaluation.id } });
    expect(agreement.isError).toBeFalsy();
    const templates = textOf(await client.callTool({ name: "list_templates", arguments: {} }));
    expect(templates.data.map((t: { id: string }) => t.id)).toContain("overall");

    const edited = textOf(
      await client.callTool({
        name: "edit_draft_evaluation",
        arguments: {
          id: evaluation.id,
          name: "Checkout, edited",
          comparisons: [{ url: "https://example.com/c" }],
        },
      }),
    );
    expect(edited.evaluation).toMatchObject({ name: "Checkout, edited", comparisonCount: 1 });
    expect(edited.comparisons[0].stimulus.url).toBe("https://example.com/c");

    const rest = await fetch(`${server.api}/evaluations/${evaluation.id}`, {
      headers: { Cookie: user.cookie },
    });
    expect(rest.status).toBe(200);
    await client.close();
  });

  it("drafts an autouser and a template from a description, offline, saving nothing", async () => {
    const tokens = await app.token(user, {
      resource: `${server.url}/mcp`,
      scope: "autousers:write templates:write",
    });
    const client = await connect(tokens.access_token);
    const persona = await client.callTool({
      name: "draft_autouser_from_prompt",
      arguments: { description: "A first-time shopper on her phone who wants to find the delivery price." },
    });
    expect(persona.isError).toBeFalsy();
    expect(textOf(persona)).toMatchObject({
      object: "autouser_draft",
      generator: "rules",
      draft: { expertise: "novice", device: { kind: "mobile" }, goals: ["Find the delivery price"] },
    });
    const template = await client.callTool({
      name: "draft_template_from_prompt",
      arguments: { description: "Compare two landing pages side by side for clarity and trust." },
    });
    expect(textOf(template)).toMatchObject({ object: "template_draft", draft: { type: "MEDIA_SXS" } });
    const tooShort = await client.callTool({
      name: "draft_template_from_prompt",
      arguments: { description: "x" },
    });
    expect(tooShort.isError).toBe(true);
    await client.close();
  });

  it("checks the token's scopes as the REST routes do", async () => {
    const tokens = await app.token(user, { resource: `${server.url}/mcp`, scope: "evaluations:read" });
    const client = await connect(tokens.access_token);
    const refused = await client.callTool({
      name: "create_evaluation",
      arguments: { name: "Not allowed", type: "SSE", designUrls: [{ url: "https://example.com/a" }] },
    });
    expect(refused.isError).toBe(true);
    expect(textOf(refused).error).toMatchObject({
      type: "authorization_error",
      code: "missing_required_scope",
    });
    const templates = await client.callTool({ name: "list_templates", arguments: {} });
    expect(templates.isError).toBe(true);
    expect(textOf(templates).error.code).toBe("missing_required_scope");
    const other = await client.callTool({ name: "get_evaluation", arguments: { id: "eval_doesnotexist" } });
    expect(textOf(other).error.code).toBe("evaluation_not_found");
    await client.close();
  });

  it("lists autousers, starts and stops their runs with the autouser scopes", async () => {
    const tokens = await app.token(user, {
      resource: `${server.url}/mcp`,
      scope: "evaluations:write autousers:read autousers:write",
    });
    const client = await connect(tokens.access_token);
    const personas = textOf(
      await client.callTool({ name: "list_autousers", arguments: { source: "system" } }),
    );
    const ids = personas.data.map((a: { id: string }) => a.id);
    expect(ids).toContain("auto_first_time_visitor");
    const evaluation = textOf(
      await client.callTool({
        name: "create_evaluation",
        arguments: { name: "Autousers via MCP", type: "SSE", designUrls: [{ url: "https://example.com/a" }] },
      }),
    );
    const started = await client.callTool({
      name: "start_autousers",
      arguments: { id: evaluation.id, autouserIds: ["auto_first_time_visitor"] },
    });
    expect(started.isError).toBeFalsy();
    const runs = textOf(started).data.runs as { id: string; status: string }[];
    expect(runs.length).toBeGreaterThan(0);
    const status = textOf(
      await client.callTool({ name: "autouser_status", arguments: { id: evaluation.id } }),
    );
    expect(status).toBeTypeOf("object");
    const stopped = await client.callTool({ name: "stop_autousers", arguments: { id: evaluation.id } });
    expect(stopped.isError).toBeFalsy();
    const after = await fetch(`${server.api}/evaluations/${evaluation.id}/autouser-runs`, {
      headers: { Cookie: user.cookie },
    });
    const listed = (await after.json()) as { data: { status: string }[] };
    expect(listed.data.length).toBe(runs.length);
    for (const run of listed.data) expect(["cancelled", "completed", "failed"]).toContain(run.status);
    await client.close();
  });
});
