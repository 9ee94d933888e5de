import { readdirSync, readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  buildOperations,
  GENERATE_COMMAND,
  GENERATED_DIR,
  loadOpenApiDocument,
  type OpenApiDocument,
  renderGeneratedFiles,
} from "../scripts/codegen";
import { Rubricon } from "../src";
import { operations } from "../src/generated/operations";
import { startTestServer, type TestServer } from "./helpers/api";

const STALE = `Run \`${GENERATE_COMMAND}\` and commit src/generated/.`;

describe("src/generated", () => {
  it("is what the generator makes from the API's current OpenAPI document", async () => {
    const expected = await renderGeneratedFiles(await loadOpenApiDocument());
    const committed = readdirSync(GENERATED_DIR).sort();
    expect(committed, `The generated files differ. ${STALE}`).toEqual(Object.keys(expected).sort());
    for (const [name, text] of Object.entries(expected)) {
      const current = readFileSync(new URL(name, GENERATED_DIR), "utf8");
      if (current === text) continue;
      const a = current.split("\n");
      const b = text.split("\n");
      const line = a.findIndex((l, i) => l !== b[i]);
      throw new Error(
        `src/generated/${name} is out of date with the API (first difference at line ${line + 1}: ` +
          `${JSON.stringify(b[line] ?? "<end of file>")}). ${STALE}`,
      );
    }
    // Loading the API to build its document compiles the whole server: slow on a busy machine.
  }, 120_000);
});

describe("methods", () => {
  let server: TestServer;
  let document: OpenApiDocument;

  beforeAll(async () => {
    server = await startTestServer();
    document = await new Rubricon({ baseUrl: server.api }).request<OpenApiDocument>("GET", "/openapi.json");
  });
  afterAll(() => server?.close());

  it("exist for every operation of the live document", () => {
    const rubricon = new Rubricon({ apiKey: "ak_live_unused", baseUrl: server.api }) as unknown as Record<
      string,
      unknown
    >;
    const missing: string[] = [];
    for (const [path, item] of Object.entries(document.paths)) {
      for (const method of Object.keys(item)) {
        if (!["get", "post", "put", "patch", "delete"].includes(method)) continue;
        const op = operations.find((o) => o.path === path && o.method === method.toUpperCase());
        let target: unknown = rubricon;
        for (const key of op ? [...op.resource, op.name] : [])
          target = (target as Record<string, unknown>)[key];
        if (typeof target !== "function") missing.push(`${method.toUpperCase()} ${path}`);
      }
    }
    expect(missing, `These operations have no SDK method. ${STALE}`).toEqual([]);
  });

  it("are the calls the API document's SDK samples show, and the CLI samples are commands the CLI has", () => {
    const wrong: string[] = [];
    const cli: string[] = [];
    for (const op of operations) {
      const operation = document.paths[op.path]?.[op.method.toLowerCase()] as
        | Record<string, unknown>
        | undefined;
      const samples = operation?.["x-codeSamples"] as { label: string; source: string }[] | undefined;
      const sdk = samples?.find((s) => s.label === "SDK (TypeScript)");
      if (!sdk?.source.includes(`rubricon.${[...op.resource, op.name].join(".")}(`))
        wrong.push(`${op.method} ${op.path}`);
      const command = samples?.find((s) => s.label === "CLI");
      if (command) cli.push(command.source);
    }
    expect(wrong, "The API's code samples name SDK methods the SDK does not have.").toEqual([]);
    expect(cli).toContain("rubricon evaluations list");
    expect(cli).toContain("rubricon results {id}");
    for (const command of cli) expect(command).toMatch(/^rubricon [a-z]/);
  });

  it("carry the names the SDK documents", () => {
    const rubricon = new Rubricon({ apiKey: "k", baseUrl: server.api });
    for (const fn of [
      rubricon.auth.whoami,
      rubricon.apiKeys.list,
      rubricon.apiKeys.create,
      rubricon.apiKeys.del,
      rubricon.teams.list,
      rubricon.teams.retrieve,
      rubricon.teams.leave,
      rubricon.teams.members.list,
      rubricon.evaluations.create,
      rubricon.evaluations.retrieve,
      rubricon.evaluations.update,
      rubricon.evaluations.del,
      rubricon.evaluations.delete,
      rubricon.evaluations.list,
      rubricon.evaluations.comparisons.list,
      rubricon.evaluations.comparisons.retrieve,
      rubricon.templates.versions.list,
      rubricon.templates.duplicate,
      rubricon.templates.revert,
      rubricon.dimensions.list,
    ]) {
      expect(typeof fn).toBe("function");
    }
    const resources = readFileSync(new URL("resources.ts", GENERATED_DIR), "utf8");
    const dimensions = resources.slice(resources.indexOf("export interface DimensionsResource"));
    expect(dimensions.slice(0, dimensions.indexOf("\n}"))).toContain(
      "@deprecated Use `templates.list` instead.",
    );
  });

  it("throw before any request when a path parameter is missing", () => {
    const rubricon = new Rubricon({ apiKey: "k", baseUrl: server.api });
    // @ts-expect-error the id is required
    expect(() => rubricon.evaluations.retrieve()).toThrow(/`id` must be a non-empty string/);
    expect(() => rubricon.evaluations.comparisons.retrieve("eval_1", "")).toThrow(/comparisonId/);
  });
});

describe("naming", () => {
  const op = (responses: Record<string, unknown> = { "200": { description: "ok" } }, extra = {}) => ({
    responses,
    ...extra,
  });
  const list = {
    "200": {
      content: {
        "application/json": {
          schema: { type: "object", properties: { data: { type: "array" }, has_more: { type: "boolean" } } },
        },
      },
    },
  };
  const paginated = { parameters: [{ name: "starting_after", in: "query" }] };

  it("derives resource and method names from path and method alone", () => {
    const names = buildOperations({
      paths: {
        "/usage": { get: op() },
        "/evaluations/{id}/results": { get: op() },
        "/evaluations/{id}/autouser-stream": { get: op({ "200": { content: { "text/event-stream": {} } } }) },
        "/evaluations/{id}/access-requests": { post: op() },
        "/evaluations/{id}/public-raters": { get: op(list, paginated) },
        "/evaluations/{id}/autouser-runs/{runId}/turns": { get: op() },
        "/autousers/{id}/calibration": { post: op() },
        "/autousers/{id}/calibration/freeze": { post: op() },
        "/settings/byok": { get: op() },
        "/settings/byok/test": { post: op() },
        "/files/{fileId}": { get: op({ "302": { description: "redirect" } }) },
        "/conversations/{id}/messages": { post: op({ "200": { content: { "text/event-stream": {} } } }) },
        "/webhooks/{id}/rotate-secret": { post: op() },
        "/teams/{id}/members": { get: op(list) },
      },
    } as unknown as OpenApiDocument).map(
      (o) => `${o.method} ${o.path} -> ${[...o.resource, o.name].join(".")} (${o.kind})`,
    );
    expect(names).toEqual([
      "GET /usage -> usage.retrieve (json)",
      "GET /evaluations/{id}/results -> evaluations.results (json)",
      "GET /evaluations/{id}/autouser-stream -> evaluations.autouserStream (stream)",
      "POST /evaluations/{id}/access-requests -> evaluations.accessRequests.create (json)",
      "GET /evaluations/{id}/public-raters -> evaluations.publicRaters.list (list)",
      "GET /evaluations/{id}/autouser-runs/{runId}/turns -> evaluations.autouserRuns.turns (json)",
      "POST /autousers/{id}/calibration -> autousers.calibration.create (json)",
      "POST /autousers/{id}/calibration/freeze -> autousers.calibration.freeze (json)",
      "GET /settings/byok -> settings.byok.retrieve (json)",
      "POST /settings/byok/test -> settings.byok.test (json)",
      "GET /files/{fileId} -> files.retrieveUrl (redirect)",
      "POST /conversations/{id}/messages -> conversations.messages.create (stream)",
      "POST /webhooks/{id}/rotate-secret -> webhooks.rotateSecret (json)",
      "GET /teams/{id}/members -> teams.members.list (json)",
    ]);
  });
});
