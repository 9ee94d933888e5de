import { afterEach, describe, expect, it } from "vitest";
import { NotFoundError, Rubricon, RubriconError } from "../src";
import { Transport } from "../src/core/transport";
import type { OperationSpec } from "../src/generated/operations";
import { buildResources } from "../src/resources";
import { errorBody, type LocalServer, sendJson, startLocalServer } from "./helpers/local-server";

let server: LocalServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe("getRedirectUrl()", () => {
  it("answers the Location of a 302 without following it", async () => {
    let followed = false;
    server = await startLocalServer((req, res) => {
      if (req.url?.startsWith("/storage/")) {
        followed = true;
        res.end("file bytes");
        return;
      }
      res.writeHead(302, {
        Location: "https://storage.example.com/f/abc?sig=123",
        "Cache-Control": "no-store",
      });
      res.end();
    });
    const rubricon = new Rubricon({ apiKey: "k", baseUrl: `${server.url}/api/v1` });
    const url = await rubricon.getRedirectUrl("/files/file_1");
    expect(url).toBe("https://storage.example.com/f/abc?sig=123");
    expect(followed).toBe(false);
    expect(server.requests[0]).toMatchObject({ method: "GET", url: "/api/v1/files/file_1" });
    expect(server.requests[0]!.headers.authorization).toBe("Bearer k");
  });

  it("resolves a relative Location against the request URL", async () => {
    server = await startLocalServer((_req, res) => {
      res.writeHead(307, { Location: "/storage/abc" });
      res.end();
    });
    const rubricon = new Rubricon({ apiKey: "k", baseUrl: `${server.url}/api/v1` });
    expect(await rubricon.getRedirectUrl("/files/file_1")).toBe(`${server.url}/storage/abc`);
  });

  it("throws the typed error of an error response, and a RubriconError for a 2xx", async () => {
    server = await startLocalServer((req, res) => {
      if (req.url?.endsWith("missing")) sendJson(res, 404, errorBody("not_found_error", "file_not_found"));
      else sendJson(res, 200, { id: "file_1" });
    });
    const rubricon = new Rubricon({ apiKey: "k", baseUrl: server.url });
    await expect(rubricon.getRedirectUrl("/files/missing")).rejects.toBeInstanceOf(NotFoundError);
    const error = await rubricon.getRedirectUrl("/files/file_1").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RubriconError);
    expect((error as RubriconError).message).toMatch(/Expected a redirect/);
  });

  it("backs generated methods of routes that answer 302", async () => {
    server = await startLocalServer((_req, res) => {
      res.writeHead(302, { Location: "https://storage.example.com/signed" });
      res.end();
    });
    // The files routes are not in the document yet; a table row of the shape the generator makes for them.
    const table: OperationSpec[] = [
      {
        method: "GET",
        path: "/files/{fileId}",
        operationId: "files-get",
        tags: ["Files"],
        pathParams: ["fileId"],
        hasBody: false,
        hasQuery: false,
        kind: "redirect",
        deprecated: false,
        resource: ["files"],
        name: "retrieveUrl",
      },
    ];
    const transport = new Transport({
      baseUrl: server.url,
      token: "k",
      serviceVersion: undefined,
      timeout: 5_000,
      maxRetries: 0,
      fetch: undefined,
      defaultHeaders: {},
    });
    const files = (
      buildResources(transport, table) as unknown as {
        files: { retrieveUrl(id: string): Promise<string> };
      }
    ).files;
    expect(await files.retrieveUrl("file/1")).toBe("https://storage.example.com/signed");
    expect(server.requests[0]!.url).toBe("/files/file%2F1");
  });
});
