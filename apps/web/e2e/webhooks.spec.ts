import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { expect, test } from "@playwright/test";
import { verify } from "@rubricon/webhooks";
import { openSettings, signUp } from "./helpers";

const SCREENSHOT_DIR = process.env.E2E_SCREENSHOT_DIR ?? "/tmp";

interface Received {
  headers: IncomingHttpHeaders;
  body: string;
}

/** A webhook receiver on loopback, where the server under test (WEBHOOKS_ALLOW_PRIVATE_URLS) may deliver. */
async function startReceiver(): Promise<{ url: string; received: Received[]; close(): Promise<void> }> {
  const received: Received[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString("utf8") });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/rubricon`,
    received,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

test("create an endpoint, send a test event, see it delivered, retry it; events show in the log", async ({
  page,
  baseURL,
}) => {
  const receiver = await startReceiver();
  const json = { Origin: baseURL!, "Content-Type": "application/json" };
  const deliveries = page.getByRole("table", { name: "Deliveries" });
  let secret = "";

  try {
    await test.step("sign up and put the team on Pro, where webhooks are available", async () => {
      await signUp(page);
      const whoami = await (await page.request.get("/api/v1/auth/whoami")).json();
      const res = await page.request.post(`/api/v1/teams/${whoami.teamId}/plan`, {
        headers: json,
        data: { plan: "pro" },
      });
      expect(res.status()).toBe(200);
    });

    await test.step("create an endpoint; the signing secret is shown once", async () => {
      await openSettings(page, "Webhooks");
      await expect(page).toHaveURL(/\/webhooks$/);
      await expect(page.getByRole("heading", { name: "Webhooks", exact: true })).toBeVisible();
      await expect(page.getByText("No endpoints yet.")).toBeVisible();
      await page.getByLabel("Endpoint URL").fill(receiver.url);
      await page.getByLabel("Description").fill("E2E receiver");
      await page.getByRole("button", { name: "Add endpoint" }).click();
      const revealed = page.getByRole("textbox", { name: "Signing secret" });
      await expect(revealed).toHaveValue(/^whsec_/);
      secret = await revealed.inputValue();
      await expect(page.getByRole("button", { name: "Copy signing secret" })).toBeVisible();
      await page.screenshot({ path: `${SCREENSHOT_DIR}/webhooks-created.png`, fullPage: true });
      await page.getByRole("button", { name: "I have stored it" }).click();
      await expect(page.getByRole("textbox", { name: "Signing secret" })).toHaveCount(0);
    });

    await test.step("send a test event: it is delivered, signed", async () => {
      await page.getByRole("link", { name: receiver.url }).click();
      await expect(page).toHaveURL(/\/webhooks\/whe_/);
      await expect(page.getByRole("heading", { name: receiver.url })).toBeVisible();
      await page.getByLabel("Test event type").selectOption("rating.created");
      await page.getByRole("button", { name: "Send test event" }).click();
      await expect(page.getByRole("status").filter({ hasText: "queued" })).toBeVisible();
      const row = deliveries.getByRole("row").filter({ hasText: "rating.created" });
      await expect(row).toContainText("Delivered", { timeout: 20_000 });
      await expect(row).toContainText("HTTP 204");
      await expect(row).toContainText("(test)");

      expect(receiver.received).toHaveLength(1);
      const [delivery] = receiver.received;
      await verify(delivery!.body, delivery!.headers, secret);
      const event = JSON.parse(delivery!.body);
      expect(event.id).toMatch(/^event_test_/);
      expect(event.type).toBe("rating.created");
      expect(event.data.object.id).toContain("_test_");
      expect(delivery!.headers["service-delivery-id"]).toMatch(/^whd_test_/);
    });

    await test.step("open the attempts and retry: a second attempt follows", async () => {
      const row = deliveries.getByRole("row").filter({ hasText: "rating.created" });
      await row.getByRole("button", { name: "Details" }).click();
      const attempts = page.getByRole("table", { name: "Attempts" });
      await expect(attempts.getByRole("row")).toHaveCount(2);
      await expect(attempts).toContainText("HTTP 204");
      await page.getByRole("button", { name: "Retry now" }).click();
      await expect(attempts.getByRole("row")).toHaveCount(3, { timeout: 20_000 });
      expect(receiver.received).toHaveLength(2);
      // A retry resends the same event.
      expect(JSON.parse(receiver.received[1]!.body).id).toBe(JSON.parse(receiver.received[0]!.body).id);
      await page.screenshot({ path: `${SCREENSHOT_DIR}/webhooks-deliveries.png`, fullPage: true });
    });

    await test.step("a real event is delivered and listed in the event log", async () => {
      const created = await page.request.post("/api/v1/evaluations", {
        headers: json,
        data: { name: "Hooked", type: "SSE", designUrls: [{ url: "https://example.com/a" }] },
      });
      expect(created.status()).toBe(201);
      const evaluation = await created.json();
      await expect(deliveries.getByRole("row").filter({ hasText: "evaluation.created" })).toContainText(
        "Delivered",
        { timeout: 20_000 },
      );
      const real = receiver.received
        .map((r) => JSON.parse(r.body))
        .find((e) => e.type === "evaluation.created");
      expect(real.data.object.id).toBe(evaluation.id);

      await openSettings(page, "Events");
      await expect(page).toHaveURL(/\/events$/);
      const log = page.getByRole("table", { name: "Events" });
      const eventRow = log.getByRole("row").filter({ hasText: evaluation.id });
      await expect(eventRow).toContainText("evaluation.created");
      await eventRow.getByRole("button", { name: "Body" }).click();
      await expect(page.getByText(`"id": "${real.id}"`)).toBeVisible();
      await page.screenshot({ path: `${SCREENSHOT_DIR}/webhooks-events.png`, fullPage: true });
    });
  } finally {
    await receiver.close();
  }
});
