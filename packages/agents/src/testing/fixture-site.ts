import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";

/**
 * A loopback web site with pages whose defects are known, so capture figures and heuristic ratings can be
 * checked against facts rather than guesses.
 */
export interface FixtureSite {
  /** `http://127.0.0.1:<port>` */
  origin: string;
  /** Absolute URLs of the fixture pages. */
  urls: {
    /** Accessible, readable, well-structured page. */
    clean: string;
    /** Low contrast, tiny text, missing alt, unlabelled inputs, small targets, mobile overflow, broken image, console error. */
    defects: string;
    /**
     * First step of a two-step flow: a link to the checkout and a button that reveals details. It also embeds
     * an image from the private address, which a guarded browser must refuse without failing the page.
     */
    flowStart: string;
    /** Second step: a form (labelled email, placeholder-only name) whose submit leads to a thank-you page. */
    flowCheckout: string;
    /** Sends headers and part of the body, then never finishes. */
    neverLoads: string;
    /** Accepts the request and never answers it: nothing of the page ever arrives. */
    neverAnswers: string;
    /** Redirects (302) to the clean page on the same site. */
    redirectToClean: string;
    /** Redirects to the cloud metadata address, which a browser must never reach. */
    redirectToPrivate: string;
    /**
     * A PNG opened on its own, served with `Content-Security-Policy: sandbox` as file stores serve uploads: the
     * document it makes never paints an animation frame.
     */
    sandboxedImage: string;
  };
  /** Where the private redirect points. */
  privateTarget: string;
  close(): Promise<void>;
}

const PRIVATE_TARGET = "http://169.254.169.254/latest/meta-data/";

const CLEAN = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Tidy Tea Shop</title>
<style>
  body { font: 18px/1.5 system-ui, sans-serif; color: #1a1a1a; background: #ffffff; margin: 0; }
  header, main, footer { padding: 16px 24px; max-width: 720px; margin: 0 auto; }
  nav a { display: inline-block; padding: 12px 16px; color: #0b4f9c; }
  button { font-size: 18px; padding: 12px 20px; min-height: 48px; color: #ffffff; background: #0b4f9c; border: 0; }
  label { display: block; margin-top: 12px; }
  input { font-size: 18px; padding: 10px; width: 100%; box-sizing: border-box; }
  img { max-width: 100%; height: auto; }
</style></head>
<body>
<header><nav aria-label="Main"><a href="/clean">Home</a><a href="/flow/start">Shop</a><a href="/clean#help">Help</a></nav></header>
<main>
  <h1>Fresh tea, sent to your door</h1>
  <img src="/img/teapot.svg" width="320" height="160" alt="A green teapot on a wooden table">
  <h2>How it works</h2>
  <p>Pick a tea you like. We pack it the same day. It comes to your door in two days. You can stop at any time.</p>
  <p>Each bag holds enough tea for twenty cups. The tea is fresh and tastes good. We pick it by hand.</p>
  <h2 id="help">Get news from us</h2>
  <form action="/clean" method="get">
    <label for="email">Email address</label>
    <input id="email" name="email" type="email" autocomplete="email">
    <p><button type="submit">Sign up</button></p>
  </form>
</main>
<footer><p>Tidy Tea Shop, open every day.</p></footer>
</body></html>`;

const DEFECTS = `<!doctype html>
<html><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Messy Tea Shop</title>
<style>
  body { font: 14px/1.3 sans-serif; color: #222; margin: 0; }
  .faint { color: #c8c8c8; background: #ffffff; }
  .tiny { font-size: 9px; }
  .wide { width: 900px; background: #eef; }
  .dot { display: inline-block; width: 14px; height: 14px; padding: 0; border: 0; background: #333; color: #fff; font-size: 8px; }
</style></head>
<body>
<div class="wide"><span class="faint">Welcome to the most extraordinarily comprehensive tea experience imaginable</span></div>
<div class="faint">Notwithstanding organisational considerations, subscription modifications necessitate administrative authorisation beforehand.</div>
<p class="tiny">Terms and conditions apply. Cancellation requires written notification delivered physically to headquarters.</p>
<p class="tiny">Additional regulatory information regarding international shipping is available upon request.</p>
<img src="/img/teapot.svg" width="120" height="60">
<img src="/img/missing.png" width="120" height="60" alt="Our shop">
<div><input type="text" name="q"> <input type="email"></div>
<div><button class="dot">x</button> <button class="dot">y</button> <a class="dot" href="/defects">z</a></div>
<script>console.error("checkout widget failed to start");</script>
</body></html>`;

const FLOW_START = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Shop</title><style>body{font:18px/1.5 sans-serif;margin:24px} .spacer{height:2400px}
button,a{display:inline-block;min-height:44px;padding:10px}</style></head>
<body><main>
<h1>Our teas</h1>
<p>Green tea, black tea and herbal tea, packed the same day.</p>
<button type="button" onclick="document.getElementById('details').hidden=false">Show details</button>
<p id="details" hidden>Every tin holds one hundred grams.</p>
<img src="${PRIVATE_TARGET}pixel.png" alt="" width="1" height="1">
<p><a href="/flow/checkout">Continue to checkout</a></p>
<p><a href="${PRIVATE_TARGET}">Staff portal</a></p>
<p><a href="/clean" target="_blank">About us</a></p>
<div class="spacer"></div>
<p>End of the tea list.</p>
</main></body></html>`;

const FLOW_CHECKOUT = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Checkout</title><style>body{font:18px/1.5 sans-serif;margin:24px} input,button{font-size:18px;min-height:44px}</style></head>
<body><main>
<h1>Checkout</h1>
<form action="/flow/done" method="get">
  <label for="email">Email</label> <input id="email" name="email" type="email">
  <p><input name="fullName" placeholder="Full name"></p>
  <button type="submit">Place order</button>
</form>
</main></body></html>`;

const done = (email: string) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Thank you</title></head>
<body><main><h1>Thank you</h1><p>We sent a receipt to ${escapeHtml(email)}.</p></main></body></html>`;

const TEAPOT = `<svg xmlns="http://www.w3.org/2000/svg" width="320" height="160" viewBox="0 0 320 160">
<rect width="320" height="160" fill="#f4efe6"/><ellipse cx="160" cy="100" rx="70" ry="45" fill="#2f7d4a"/>
<rect x="140" y="40" width="40" height="18" rx="6" fill="#2f7d4a"/></svg>`;

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function send(res: ServerResponse, status: number, type: string, body: string): void {
  res.writeHead(status, { "content-type": type, "cache-control": "no-store" });
  res.end(body);
}

const HTML = "text/html; charset=utf-8";

/** A 1x1 PNG. */
const PNG = Buffer.from(
  "89504e470d0a1a0a0000000d4948445200000001000000010806000000" +
    "1f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082",
  "hex",
);

/** Pages whose body never changes: path → [content type, body]. */
const STATIC: Record<string, [string, string]> = {
  "/clean": [HTML, CLEAN],
  "/defects": [HTML, DEFECTS],
  "/flow/start": [HTML, FLOW_START],
  "/flow/checkout": [HTML, FLOW_CHECKOUT],
  "/img/teapot.svg": ["image/svg+xml", TEAPOT],
};

function handle(req: IncomingMessage, res: ServerResponse): void {
  const url = new URL(req.url ?? "/", "http://fixture.invalid");
  const fixed = STATIC[url.pathname];
  if (fixed) {
    send(res, 200, fixed[0], fixed[1]);
  } else if (url.pathname === "/flow/done") {
    send(res, 200, HTML, done(url.searchParams.get("email") ?? ""));
  } else if (url.pathname === "/never-answers") {
    // Nothing is written; the socket is destroyed when the site closes.
  } else if (url.pathname === "/never-loads") {
    // The document arrives; its image never does, so the page never finishes loading.
    send(
      res,
      200,
      HTML,
      '<!doctype html><html><head><title>Still loading</title></head><body><main><h1>Loading</h1><p>Loading the catalogue, please wait.</p><img src="/never-answers" alt="Catalogue" width="200" height="100"></main></body></html>',
    );
  } else if (url.pathname === "/img/sandboxed.png") {
    res.writeHead(200, {
      "content-type": "image/png",
      "content-security-policy": "default-src 'none'; img-src 'self'; sandbox",
    });
    res.end(PNG);
  } else if (url.pathname === "/redirect-clean") {
    res.writeHead(302, { location: "/clean" });
    res.end();
  } else if (url.pathname === "/redirect-private") {
    res.writeHead(302, { location: PRIVATE_TARGET });
    res.end();
  } else {
    send(res, 404, "text/plain; charset=utf-8", "not found");
  }
}

/** Starts the fixture site on an ephemeral loopback port. */
export async function startFixtureSite(): Promise<FixtureSite> {
  const sockets = new Set<Socket>();
  const server = createServer(handle);
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    urls: {
      clean: `${origin}/clean`,
      defects: `${origin}/defects`,
      flowStart: `${origin}/flow/start`,
      flowCheckout: `${origin}/flow/checkout`,
      neverLoads: `${origin}/never-loads`,
      neverAnswers: `${origin}/never-answers`,
      redirectToClean: `${origin}/redirect-clean`,
      redirectToPrivate: `${origin}/redirect-private`,
      sandboxedImage: `${origin}/img/sandboxed.png`,
    },
    privateTarget: PRIVATE_TARGET,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
