import { createHash } from "node:crypto";
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { type BrowserServer, chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AgentBrowser, DEFAULT_CHROMIUM_PATH, launchAgentBrowser, type PersonaDevice } from "../src";

/**
 * A browser that does not guard local networks itself (as an older or remote one, `BROWSER_WS_ENDPOINT`, may not):
 * whatever never reaches the private server below was stopped by our own address guard.
 */
const NO_LOCAL_NETWORK_CHECKS = [
  "--disable-features=PrivateNetworkAccessSendPreflights,PrivateNetworkAccessRespectPreflightResults," +
    "BlockInsecurePrivateNetworkRequests,PrivateNetworkAccessForWorkers,PrivateNetworkAccessForNavigations," +
    "LocalNetworkAccessChecks,LocalNetworkAccessChecksWebSockets,LocalNetworkAccessChecksWebRTC",
];

const desktop: PersonaDevice = { kind: "desktop", viewport: { width: 1280, height: 800 }, network: "fast" };

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** Completes a WebSocket handshake and sends one text message. */
function acceptSocket(req: IncomingMessage, socket: Socket, message: string): void {
  const accept = createHash("sha1")
    .update(`${req.headers["sec-websocket-key"]}258EAFA5-E914-47DA-95CA-C5AB0DC85B11`)
    .digest("base64");
  socket.write(
    `HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ${accept}\r\n\r\n`,
  );
  const payload = Buffer.from(message);
  socket.write(Buffer.concat([Buffer.from([0x81, payload.length]), payload]));
  sockets.push(socket);
}

let browserServer: BrowserServer;
let browser: AgentBrowser;
let site: Server;
let inside: Server;
let siteHost: string;
let insideHost: string;
/** Every request and socket that reached the "private" server. */
const reached: string[] = [];
const sockets: Socket[] = [];
let pixels = 0;

beforeAll(async () => {
  inside = createServer((req, res) => {
    reached.push(`${req.method} ${req.url}`);
    res.writeHead(200, { "Content-Type": "image/png", "Access-Control-Allow-Origin": "*" }).end();
  });
  inside.on("upgrade", (req, socket: Socket) => {
    reached.push(`WS ${req.url}`);
    acceptSocket(req, socket, "secret");
  });
  insideHost = await listen(inside);

  site = createServer((req, res) => {
    const url = req.url ?? "/";
    if (url === "/to-inside")
      return void res.writeHead(302, { Location: `http://${insideHost}/secret` }).end();
    if (url === "/hop") return void res.writeHead(307, { Location: "/to-inside" }).end();
    if (url === "/to-self") return void res.writeHead(302, { Location: "/pixel" }).end();
    if (url === "/pixel") {
      pixels++;
      return void res.writeHead(200, { "Content-Type": "image/gif" }).end();
    }
    res.writeHead(200, { "Content-Type": "text/html" });
    if (url === "/redirects") {
      return void res.end(`<!doctype html><title>Redirects</title><h1>Redirects</h1>
        <img src="/to-inside"><img src="/hop"><img id="ok" src="/to-self">
        <script>
          fetch("/to-inside").catch(() => {});
          fetch("/hop", { mode: "no-cors" }).catch(() => {});
          new Image().src = "/hop?again";
        </script>`);
    }
    if (url === "/sockets") {
      return void res.end(`<!doctype html><title>Sockets</title><h1 id="out">waiting</h1>
        <script>
          const out = document.getElementById("out");
          const own = new WebSocket("ws://${siteHost}/live");
          own.onmessage = (e) => { out.textContent = "own: " + e.data; };
          const sneaky = new WebSocket("ws://${insideHost}/socket");
          sneaky.onmessage = (e) => { out.textContent = "inside: " + e.data; };
        </script>`);
    }
    res.end("<!doctype html><title>Home</title><h1>Home</h1>");
  });
  site.on("upgrade", (req, socket: Socket) => acceptSocket(req, socket, "hello"));
  siteHost = await listen(site);

  browserServer = await chromium.launchServer({
    executablePath: DEFAULT_CHROMIUM_PATH,
    args: ["--no-sandbox", "--disable-background-networking", ...NO_LOCAL_NETWORK_CHECKS],
  });
  browser = await launchAgentBrowser({ wsEndpoint: browserServer.wsEndpoint() });
});

afterAll(async () => {
  await browser?.close();
  await browserServer?.close();
  for (const socket of sockets) socket.destroy();
  for (const server of [site, inside]) {
    server?.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve));
  }
});

/** The site counts as public, the other server as a private address. */
const onlySite = async (url: string) => new URL(url).host === siteHost;

describe("the address guard on a browser without local-network checks", () => {
  it("checks every redirect hop of a page's images and fetches", async () => {
    const page = await browser.open({ device: desktop, isAllowedUrl: onlySite });
    try {
      const capture = await page.visit(`http://${siteHost}/redirects`);
      expect(capture.finalUrl).toBe(`http://${siteHost}/redirects`);
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(reached).toEqual([]);
      // A redirect to an allowed address is still followed.
      expect(pixels).toBeGreaterThan(0);

      // A visit whose second redirect leads inside fails as a refused address, and nothing reaches it.
      const err = await page.visit(`http://${siteHost}/hop`).catch((e: unknown) => e);
      expect(err).toMatchObject({
        code: "blocked_url",
        message: expect.stringContaining(`${insideHost}/secret`),
      });
      expect(reached).toEqual([]);
    } finally {
      await page.close();
    }
  });

  it("checks every WebSocket the page opens, and lets allowed ones through", async () => {
    const page = await browser.open({ device: desktop, isAllowedUrl: onlySite });
    try {
      await page.visit(`http://${siteHost}/sockets`);
      await new Promise((resolve) => setTimeout(resolve, 1000));
      const capture = await page.capture();
      expect(capture.visibleText).toContain("own: hello");
      expect(reached).toEqual([]);
    } finally {
      await page.close();
    }
  });
});
