import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bearer, mintApiKey, signUp } from "./helpers/clients";
import type { TestServer } from "./helpers/server";
import { type OpenStream, openStream } from "./helpers/sse";
import { startWebhookServer } from "./helpers/webhooks";

let server: TestServer;
beforeAll(async () => {
  server = await startWebhookServer();
}, 60_000);
afterAll(() => server?.close());

describe("open event streams", () => {
  it("are capped per key (10) and per team (25): past that 429 with Retry-After, and a closed one frees its slot", async () => {
    const user = await signUp(server, "streams");
    const keys = await Promise.all([1, 2, 3].map(() => mintApiKey(server, user, ["events:read"])));
    const streams: OpenStream[] = [];
    try {
      for (let i = 0; i < 10; i++)
        streams.push(await openStream(`${server.api}/events/stream`, bearer(keys[0]!)));
      expect(streams.map((s) => s.response.status)).toEqual(Array(10).fill(200));
      const over = await fetch(`${server.api}/events/stream`, { headers: bearer(keys[0]!) });
      expect(over.status).toBe(429);
      expect(Number(over.headers.get("retry-after"))).toBeGreaterThan(0);
      expect(await over.json()).toMatchObject({
        error: {
          type: "rate_limit_error",
          code: "rate_limit_exceeded",
          message: expect.stringContaining("per credential"),
        },
      });

      // Another key of the team has slots of its own, until the team's 25 are taken.
      for (let i = 0; i < 10; i++)
        streams.push(await openStream(`${server.api}/events/stream`, bearer(keys[1]!)));
      for (let i = 0; i < 5; i++)
        streams.push(await openStream(`${server.api}/events/stream`, bearer(keys[2]!)));
      expect(streams.every((s) => s.response.status === 200)).toBe(true);
      const teamFull = await fetch(`${server.api}/events/stream`, { headers: bearer(keys[2]!) });
      expect(teamFull.status).toBe(429);
      expect(await teamFull.json()).toMatchObject({
        error: { message: expect.stringContaining("per team") },
      });

      // Closing a stream gives its slot back once the server sees the client go.
      streams.shift()!.close();
      let again: Response | undefined;
      for (let i = 0; i < 50 && again?.status !== 200; i++) {
        await new Promise((r) => setTimeout(r, 100));
        const res = await fetch(`${server.api}/events/stream`, { headers: bearer(keys[0]!) });
        if (res.status === 200) again = res;
        else await res.body?.cancel();
      }
      expect(again?.status).toBe(200);
      await again?.body?.cancel();
    } finally {
      for (const s of streams) s.close();
    }
  }, 120_000);
});
