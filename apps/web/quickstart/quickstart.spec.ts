/**
 * The first thing a person runs: the README's quick start on a clean clone (clone-and-start.mjs), then the whole
 * product through HTTP, the CLI and a real browser, on the embedded database with the embedded worker.
 */
import { spawn } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { expect, test } from "@playwright/test";
import { startFixtureSite } from "@rubricon/agents/testing";
import { constructEvent } from "@rubricon/webhooks";
import { startCliLogin } from "../e2e/cli-login";
import { signUp } from "../e2e/helpers";
import { authorizeApp } from "../e2e/oauth-flow";

interface Delivery {
  headers: IncomingHttpHeaders;
  body: string;
}

async function startReceiver() {
  const received: Delivery[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString("utf8") });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    received,
    close: () => new Promise<void>((done) => server.close(() => done())),
  };
}

test("quick start: sign up, a key, a shared evaluation rated by a stranger, an autouser, the CLI, MCP and a webhook", async ({
  page,
  browser,
  baseURL,
}) => {
  test.setTimeout(600_000);
  const site = await startFixtureSite();
  const receiver = await startReceiver();
  const api = `${baseURL}/api/v1`;
  try {
    let key = "";
    let secret = "";
    let evaluation = { id: "", shareToken: "" };

    await test.step("sign up in the dashboard and create an API key", async () => {
      await signUp(page);
      const res = await page.request.post(`${api}/api-keys`, {
        headers: { Origin: baseURL!, "Content-Type": "application/json" },
        data: { name: "quick start", scopes: ["*"] },
      });
      expect(res.status()).toBe(201);
      key = (await res.json()).key;
      expect(key).toMatch(/^\w+_/);
    });
    const withKey = { Authorization: `Bearer ${key}`, "Content-Type": "application/json" };

    await test.step("subscribe a webhook endpoint on loopback", async () => {
      const res = await fetch(`${api}/webhooks`, {
        method: "POST",
        headers: withKey,
        body: JSON.stringify({ url: receiver.url, enabled_events: ["rating.created"] }),
      });
      expect(res.status, await res.clone().text()).toBe(201);
      secret = (await res.json()).secret;
    });

    await test.step("create a Running evaluation shared with anyone who has the link", async () => {
      const res = await fetch(`${api}/evaluations`, {
        method: "POST",
        headers: withKey,
        body: JSON.stringify({
          name: "Quick start study",
          type: "SSE",
          status: "Running",
          shareAccess: "ANYONE_WITH_LINK",
          designUrls: [{ url: site.urls.clean }],
        }),
      });
      expect(res.status, await res.clone().text()).toBe(201);
      evaluation = await res.json();
      expect(evaluation.shareToken).toBeTruthy();
    });

    await test.step("a stranger opens the share page and rates", async () => {
      const stranger = await browser.newContext();
      const rater = await stranger.newPage();
      const opened = await rater.goto(`/share/${evaluation.shareToken}`);
      expect(opened?.status()).toBe(200);
      await expect(rater.getByRole("heading", { name: "Quick start study" })).toBeVisible();
      await expect(rater.getByRole("heading", { name: "Ready when you are" })).toBeVisible();
      await rater.getByRole("button", { name: "Start rating" }).click();
      await rater
        .getByRole("group", { name: /Overall quality/ })
        .getByRole("button", { name: /^6 / })
        .click();
      await rater.getByRole("button", { name: "Submit rating" }).click();
      await expect(rater.getByRole("heading", { name: "All done — thank you!" })).toBeVisible();
      await stranger.close();
    });

    await test.step("the worker delivers the rating's webhook, signed with the endpoint's secret", async () => {
      await expect.poll(() => receiver.received.length, { timeout: 60_000 }).toBeGreaterThan(0);
      const delivery = receiver.received[0]!;
      const event = await constructEvent(delivery.body, delivery.headers, secret);
      expect(event).toMatchObject({ type: "rating.created" });
    });

    await test.step("an autouser run on the design completes with a rating", async () => {
      const res = await fetch(`${api}/evaluations/${evaluation.id}/run-autousers`, {
        method: "POST",
        headers: withKey,
        body: JSON.stringify({ autouserIds: ["auto_power_user"] }),
      });
      expect(res.status, await res.clone().text()).toBe(202);
      const runId = (await res.json()).data.runs[0].id as string;
      await expect
        .poll(
          async () => {
            const run = await fetch(`${api}/evaluations/${evaluation.id}/autouser-runs/${runId}`, {
              headers: withKey,
            });
            return (await run.json()).status;
          },
          { timeout: 180_000, intervals: [1_000] },
        )
        .toBe("completed");
    });

    await test.step("rubricon login completes the OAuth flow with PKCE, and the CLI calls the API", async () => {
      const config = mkdtempSync(join(tmpdir(), "rubricon-quickstart-cli-"));
      const env = {
        ...process.env,
        HOME: config,
        RUBRICON_BASE_URL: baseURL!,
        RUBRICON_CONFIG_DIR: config,
      };
      const cli = join(process.env.QUICKSTART_CLONE!, "packages/cli/dist/rubricon.js");
      const { address, exited } = await startCliLogin(process.execPath, { prefix: [cli], env });
      await page.goto(address);
      await page.getByRole("button", { name: "Allow" }).click();
      await expect(page.getByText("Signed in")).toBeVisible();
      expect(await exited).toBe(0);
      const whoami = spawn(process.execPath, [cli, "whoami", "--json"], { env });
      let out = "";
      whoami.stdout.on("data", (c: Buffer) => {
        out += c.toString();
      });
      expect(await new Promise<number>((done) => whoami.once("exit", (code) => done(code ?? -1)))).toBe(0);
      expect(JSON.parse(out)).toMatchObject({ principal: "oauth" });
    });

    await test.step("an assistant connects over MCP with an OAuth token and calls a tool", async () => {
      const { tokens } = await authorizeApp(page, baseURL!, {
        clientName: "Quick start assistant",
        scope: "evaluations:read",
        resource: `${baseURL}/mcp`,
      });
      const client = new Client({ name: "quickstart", version: "1.0.0" });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(`${baseURL}/mcp`), {
          requestInit: { headers: { Authorization: `Bearer ${tokens.access_token}` } },
        }),
      );
      const tools = await client.listTools();
      const list = tools.tools.find((t) => t.name === "list_evaluations");
      expect(list, tools.tools.map((t) => t.name).join(", ")).toBeDefined();
      const result = await client.callTool({ name: "list_evaluations", arguments: {} });
      expect(JSON.stringify(result.content)).toContain(evaluation.id);
      await client.close();
    });
  } finally {
    await receiver.close();
    await site.close();
  }
});
