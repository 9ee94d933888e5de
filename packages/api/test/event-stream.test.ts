import { Evaluation, EventEnvelope } from "@rubricon/contracts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createEvaluation } from "./helpers/assertions";
import { bearer, call, mintApiKey, signUp } from "./helpers/clients";
import type { TestServer } from "./helpers/server";
import { nextEvent, openStream } from "./helpers/sse";
import { startWebhookServer } from "./helpers/webhooks";

let server: TestServer;

beforeAll(async () => {
  server = await startWebhookServer();
});
afterAll(() => server?.close());

async function account(scopes = ["evaluations:*", "events:read"]) {
  const user = await signUp(server, "stream");
  return { user, headers: bearer(await mintApiKey(server, user, scopes)) };
}

describe("GET /events/stream", () => {
  it("sends ready, then each new event as deliveries send it, and resumes after Last-Event-ID", async () => {
    const { user, headers } = await account();
    await createEvaluation(server.api, headers); // before the stream: not sent
    const stream = await openStream(`${server.api}/events/stream`, headers);
    expect(stream.response.status).toBe(200);
    expect(stream.response.headers.get("content-type")).toMatch(/^text\/event-stream/);
    const ready = await nextEvent(stream);
    expect(ready).toMatchObject({ event: "ready", data: { object: "event_stream", teamId: user.teamId } });
    expect(ready?.id).toBeUndefined();

    const a = await createEvaluation(server.api, headers);
    const created = await nextEvent(stream);
    expect(created?.event).toBe("evaluation.created");
    const event = EventEnvelope.parse(created?.data);
    expect(created?.id).toBe(event.id);
    expect(event).toMatchObject({ type: "evaluation.created", team_id: user.teamId });
    expect((event.data.object as { id: string }).id).toBe(a.id);
    const logged = await call(EventEnvelope, `${server.api}/events/${event.id}`, { headers });
    expect(logged.body).toEqual(event);

    const moved = await call(Evaluation, `${server.api}/evaluations/${a.id}`, {
      method: "PATCH",
      headers,
      body: { status: "Running" },
    });
    expect(moved.status).toBe(200);
    const changed = await nextEvent(stream);
    expect(changed?.event).toBe("evaluation.status_changed");
    stream.close();

    // Missed while disconnected, then resumed: only what came after the last id seen, filtered by type.
    const b = await createEvaluation(server.api, headers);
    const resumed = await openStream(`${server.api}/events/stream?types=evaluation.created`, {
      ...headers,
      "Last-Event-ID": event.id,
    });
    expect((await nextEvent(resumed))?.event).toBe("ready");
    const missed = await nextEvent(resumed);
    expect(missed?.event).toBe("evaluation.created");
    expect(EventEnvelope.parse(missed!.data).data.object.id).toBe(b.id);
    resumed.close();
  });

  it("refuses an unknown Last-Event-ID, unknown types, and keys without events:read", async () => {
    const { headers } = await account();
    const unknownId = await fetch(`${server.api}/events/stream`, {
      headers: { ...headers, "Last-Event-ID": "evt_nope" },
    });
    expect(unknownId.status).toBe(400);
    expect(((await unknownId.json()) as { error: { param: string } }).error.param).toBe("Last-Event-ID");

    const badType = await fetch(`${server.api}/events/stream?types=evaluation.created,nope.nope`, {
      headers,
    });
    expect(badType.status).toBe(400);
    expect(((await badType.json()) as { error: { param: string } }).error.param).toBe("types");

    const { headers: noScope } = await account(["evaluations:*"]);
    const refused = await fetch(`${server.api}/events/stream`, { headers: noScope });
    expect(refused.status).toBe(403);
  });
});
