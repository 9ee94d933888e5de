import { Evaluation, EventEnvelope, EventList } from "@rubricon/contracts";
import { events } from "@rubricon/db";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createEvaluation, expectError, expectStatus } from "./helpers/assertions";
import { bearer, bodyOf, call, mintApiKey, signUp } from "./helpers/clients";
import type { TestServer } from "./helpers/server";
import { startWebhookServer } from "./helpers/webhooks";

let server: TestServer;

beforeAll(async () => {
  server = await startWebhookServer();
});
afterAll(() => server?.close());

async function teamWithEvents() {
  const user = await signUp(server, "events");
  const key = await mintApiKey(server, user, ["evaluations:*", "events:read"]);
  const headers = bearer(key);
  const a = await createEvaluation(server.api, headers);
  const b = await createEvaluation(server.api, headers);
  const moved = await call(Evaluation, `${server.api}/evaluations/${a.id}`, {
    method: "PATCH",
    headers,
    body: { status: "Running" },
  });
  expect(moved.status).toBe(200);
  return { user, headers, a, b };
}

const list = (headers: Record<string, string>, query = "") =>
  call(EventList, `${server.api}/events${query}`, { headers });

describe("event log", () => {
  it("lists the team's events newest first, each exactly as deliveries send it", async () => {
    const { user, headers, a, b } = await teamWithEvents();
    const res = await list(headers);
    expectStatus(res, 200);
    const page = res.body;
    expect(page.data.map((e) => [e.type, e.data.object.id])).toEqual([
      ["evaluation.status_changed", a.id],
      ["evaluation.created", b.id],
      ["evaluation.created", a.id],
    ]);
    expect(page.data[0]!.data.object).toMatchObject({ status: "Running", previous_status: "Draft" });
    expect(page.has_more).toBe(false);
    const rows = await server.database.db.select().from(events).where(eq(events.teamId, user.teamId));
    for (const event of page.data) {
      expect(JSON.stringify(event)).toBe(rows.find((r) => r.id === event.id)!.payload);
      expect(event.team_id).toBe(user.teamId);
    }
  });

  it("filters by type and object_id", async () => {
    const { headers, a } = await teamWithEvents();
    const created = bodyOf(await list(headers, "?type=evaluation.created"));
    expect(created.data).toHaveLength(2);
    expect(created.data.every((e) => e.type === "evaluation.created")).toBe(true);
    const ofA = bodyOf(await list(headers, `?object_id=${a.id}`));
    expect(ofA.data.map((e) => e.type)).toEqual(["evaluation.status_changed", "evaluation.created"]);
    expectError(await list(headers, "?type=rating.deleted"), 400, {
      type: "invalid_request_error",
      param: "type",
    });
  });

  it("pages with exact cursors both ways", async () => {
    const { headers } = await teamWithEvents();
    await createEvaluation(server.api, headers);
    const all = bodyOf(await list(headers)).data.map((e) => e.id);
    expect(all).toHaveLength(4);
    const first = bodyOf(await list(headers, "?limit=3"));
    expect(first.has_more).toBe(true);
    const rest = bodyOf(await list(headers, `?limit=3&starting_after=${first.next_cursor}`));
    expect([...first.data, ...rest.data].map((e) => e.id)).toEqual(all);
    expect(rest.has_more).toBe(false);
    const newer = bodyOf(await list(headers, `?ending_before=${all[2]}`));
    expect(newer.data.map((e) => e.id)).toEqual(all.slice(0, 2));
    expectError(await list(headers, "?starting_after=event_nope"), 400, {
      type: "invalid_request_error",
      code: "invalid_cursor",
      param: "starting_after",
    });
  });

  it("retrieves one event; another team's is 404", async () => {
    const { headers } = await teamWithEvents();
    const [latest] = bodyOf(await list(headers, "?limit=1")).data;
    const got = await call(EventEnvelope, `${server.api}/events/${latest!.id}`, { headers });
    expectStatus(got, 200);
    expect(got.body).toEqual(latest);

    const stranger = await signUp(server, "stranger");
    const strangerKey = await mintApiKey(server, stranger, ["*"]);
    expectError(
      await call(EventEnvelope, `${server.api}/events/${latest!.id}`, { headers: bearer(strangerKey) }),
      404,
      {
        type: "not_found_error",
        code: "event_not_found",
      },
    );
    // Nor can another team's event serve as a cursor into this team's log.
    expectError(await list(bearer(strangerKey), `?starting_after=${latest!.id}`), 400, {
      type: "invalid_request_error",
      code: "invalid_cursor",
    });
  });
});
