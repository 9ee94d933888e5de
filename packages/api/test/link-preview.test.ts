import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { LinkPreview } from "@rubricon/contracts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectError, expectStatus } from "./helpers/assertions";
import { bearer, call, mintApiKey, signUp } from "./helpers/clients";
import { startTestServer, type TestServer } from "./helpers/server";

let pages: Server;
let origin: string;
const hits = new Map<string, number>();

const DESIGN_PAGE = `<!doctype html><html><head>
  <title>Fallback title</title>
  <meta property="og:title" content="Checkout &amp; payment flow">
  <meta property="og:description" content="Prototype of the new checkout">
  <meta property="og:image" content="/thumb.png">
  <meta property="og:site_name" content="Figma">
</head><body><meta property="og:title" content="not in head"></body></html>`;

beforeAll(async () => {
  pages = createServer((req, res) => {
    hits.set(req.url!, (hits.get(req.url!) ?? 0) + 1);
    if (req.url === "/design")
      return void res.writeHead(200, { "Content-Type": "text/html" }).end(DESIGN_PAGE);
    if (req.url === "/plain")
      return void res
        .writeHead(200, { "Content-Type": "text/html; charset=utf-8" })
        .end(
          '<html><head><title> Plain page </title><meta name="description" content="Just meta"></head></html>',
        );
    if (req.url === "/moved") return void res.writeHead(301, { Location: "/design" }).end();
    if (req.url === "/json") return void res.writeHead(200, { "Content-Type": "application/json" }).end("{}");
    if (req.url === "/slow") return; // never answers
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => pages.listen(0, "127.0.0.1", resolve));
  origin = `http://127.0.0.1:${(pages.address() as AddressInfo).port}`;
});
afterAll(async () => {
  pages.closeAllConnections();
  await new Promise((resolve) => pages.close(resolve));
});

const preview = (server: TestServer, key: string, url: string) =>
  call(LinkPreview, `${server.api}/link-preview?url=${encodeURIComponent(url)}`, { headers: bearer(key) });

describe("link preview with private targets allowed (development and tests)", () => {
  let server: TestServer;
  let key: string;
  beforeAll(async () => {
    server = await startTestServer({ env: { WEBHOOKS_ALLOW_PRIVATE_URLS: "true" } });
    key = await mintApiKey(server, await signUp(server, "preview"), ["evaluations:read"]);
  });
  afterAll(() => server?.close());

  it("reads Open Graph meta, resolving the image against the page", async () => {
    const res = await preview(server, key, `${origin}/design`);
    expectStatus(res, 200);
    expect(res.body).toMatchObject({
      object: "link_preview",
      url: `${origin}/design`,
      title: "Checkout & payment flow",
      description: "Prototype of the new checkout",
      image: `${origin}/thumb.png`,
      siteName: "Figma",
    });
  });

  it("falls back to the title and description tags, and follows redirects", async () => {
    expect((await preview(server, key, `${origin}/plain`)).body).toMatchObject({
      title: "Plain page",
      description: "Just meta",
      image: null,
      siteName: null,
    });
    const moved = await preview(server, key, `${origin}/moved`);
    expectStatus(moved, 200);
    expect(moved.body).toMatchObject({ url: `${origin}/design`, title: "Checkout & payment flow" });
  });

  it("keeps a URL's preview for an hour", async () => {
    const before = hits.get("/plain") ?? 0;
    await preview(server, key, `${origin}/plain`);
    await preview(server, key, `${origin}/plain`);
    expect(hits.get("/plain") ?? 0).toBe(before);
  });

  it("refuses pages that are not HTML, missing, or too slow", async () => {
    for (const path of ["/json", "/missing"]) {
      expectError(await preview(server, key, `${origin}${path}`), 400, {
        type: "invalid_request_error",
        code: "link_preview_unavailable",
        param: "url",
      });
    }
    const started = Date.now();
    expectError(await preview(server, key, `${origin}/slow`), 400, {
      type: "invalid_request_error",
      code: "link_preview_unavailable",
    });
    expect(Date.now() - started).toBeLessThan(8_000);
  }, 15_000);

  it("refuses what is not an http(s) URL", async () => {
    for (const url of ["ftp://example.com/x", "not a url", "http://user:pw@example.com/"]) {
      expectError(await preview(server, key, url), 400, {
        type: "invalid_request_error",
        code: "parameter_invalid",
        param: "url",
      });
    }
  });
});

describe("link preview in production settings", () => {
  let server: TestServer;
  let key: string;
  beforeAll(async () => {
    server = await startTestServer();
    key = await mintApiKey(server, await signUp(server, "preview-guard"), ["evaluations:read"]);
  });
  afterAll(() => server?.close());

  it("refuses loopback, private and link-local addresses, by literal or by name", async () => {
    const before = hits.get("/design") ?? 0;
    for (const url of [
      `${origin}/design`,
      `http://localhost:${new URL(origin).port}/design`,
      "http://10.0.0.1/",
      "http://169.254.169.254/latest/meta-data/",
      "http://[::1]/",
    ]) {
      expectError(await preview(server, key, url), 400, {
        type: "invalid_request_error",
        code: "link_preview_unavailable",
        param: "url",
      });
    }
    expect(hits.get("/design") ?? 0).toBe(before);
  });
});
