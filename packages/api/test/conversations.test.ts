import { setTimeout as sleep } from "node:timers/promises";
import {
  Conversation,
  ConversationList,
  ConversationMessage,
  ConversationMessageList,
  Evaluation,
  EvaluationList,
  MaterializedConversation,
} from "@rubricon/contracts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { expectError, expectStatus } from "./helpers/assertions";
import { bearer, bodyOf, call, mintApiKey, signUp, type TestUser } from "./helpers/clients";
import { startTestServer, type TestServer } from "./helpers/server";
import { type Frame, nextEvent, type OpenStream, readFrames } from "./helpers/sse";

let server: TestServer;
let user: TestUser;
let key: string;

beforeAll(async () => {
  server = await startTestServer();
  user = await signUp(server, "builder");
  key = await mintApiKey(server, user, ["evaluations:*", "templates:*"]);
});
afterAll(() => server?.close());

const REQUEST =
  "Compare the new checkout with the old one for first-time mobile shoppers: https://shop.example/checkout-old and https://shop.example/checkout-new. I care about clarity and trust.";

async function newConversation(headers = bearer(key)): Promise<Conversation> {
  const res = await call(Conversation, `${server.api}/conversations`, { method: "POST", headers, body: {} });
  expectStatus(res, 201);
  return res.body;
}

async function postStream(
  url: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<OpenStream> {
  const controller = new AbortController();
  const response = await fetch(url, {
    method: "POST",
    headers: { ...bearer(key), "Content-Type": "application/json", ...headers },
    body: JSON.stringify(body),
    signal: controller.signal,
  });
  return readFrames(response, () => controller.abort());
}

const message = (text: string, attachedDesignUrls: string[] = []) => ({
  role: "user",
  parts: [{ type: "text", text }],
  attachedDesignUrls,
});

async function collect(stream: OpenStream): Promise<Frame[]> {
  const frames: Frame[] = [];
  for (let f = await nextEvent(stream); f; f = await nextEvent(stream)) frames.push(f);
  return frames;
}

async function send(conversationId: string, text: string, urls: string[] = []): Promise<Frame[]> {
  const stream = await postStream(
    `${server.api}/conversations/${conversationId}/messages`,
    message(text, urls),
  );
  expect(stream.response.status).toBe(200);
  return collect(stream);
}

const textOf = (frames: Frame[]) =>
  frames
    .filter((f) => f.event === "text_delta")
    .map((f) => (f.data as { delta: string }).delta)
    .join("");

async function messages(conversationId: string) {
  return bodyOf(
    await call(ConversationMessageList, `${server.api}/conversations/${conversationId}/messages?limit=100`, {
      headers: bearer(key),
    }),
  ).data;
}

async function eventually<T>(read: () => Promise<T>, ok: (v: T) => boolean, ms = 5_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await read();
    if (ok(value)) return value;
    if (Date.now() > deadline) throw new Error(`condition not met in time: ${JSON.stringify(value)}`);
    await sleep(50);
  }
}

describe("the reply stream (rule-based builder)", () => {
  it("streams the start, text deltas, the drafts and the stored message, in that order", async () => {
    const conversation = await newConversation();
    expect(conversation.status).toBe("active");
    const stream = await postStream(
      `${server.api}/conversations/${conversation.id}/messages`,
      message(REQUEST),
    );
    expect(stream.response.status).toBe(200);
    expect(stream.response.headers.get("content-type")).toMatch(/^text\/event-stream/);
    const frames = await collect(stream);
    const names = frames.map((f) => f.event);
    expect(names[0]).toBe("message_start");
    expect(names.at(-2)).toBe("drafts");
    expect(names.at(-1)).toBe("message");
    expect(names.slice(1, -2).every((n) => n === "text_delta")).toBe(true);
    expect(names.filter((n) => n === "text_delta").length).toBeGreaterThan(2);
    // Every event has an id the client can resume from, in order.
    const seqs = frames.map((f) => Number(f.id!.split(":")[1]));
    expect(seqs).toEqual(seqs.map((_, i) => i + 1));

    const start = frames[0]!.data as { messageId: string; generator: string; userMessage: unknown };
    expect(start.generator).toBe("rules");
    ConversationMessage.parse(start.userMessage);
    const stored = ConversationMessage.parse(frames.at(-1)!.data);
    expect(stored).toMatchObject({
      id: start.messageId,
      role: "assistant",
      status: "complete",
      generator: "rules",
    });
    expect(stored.parts[0]!.text).toBe(textOf(frames));
    expect(stored.parts[0]!.text).toContain("side-by-side");
    expect(stored.parts[0]!.text).toContain("No AI model is configured");

    const after = Conversation.parse(frames.at(-2)!.data);
    expect(after.drafts.evaluation).toMatchObject({
      type: "SxS",
      comparisonPairs: [
        { currentUrl: "https://shop.example/checkout-old", variantUrl: "https://shop.example/checkout-new" },
      ],
    });
    expect(after.drafts.templates.map((t) => t.templateId ?? t.template?.name)).toEqual(["content", "Trust"]);
    // The system personas that stand in for the audience.
    expect(after.drafts.autousers.map((a) => a.autouserId)).toEqual([
      "auto_mobile_shopper_slow_network",
      "auto_first_time_visitor",
    ]);
    expect(after.drafts.evaluation.evaluationMethod).toBe("both");
    expect(after.status).toBe("ready");
    expect(after.issues).toEqual([]);

    const stored2 = await messages(conversation.id);
    expect(stored2.map((m) => m.role)).toEqual(["assistant", "user"]);
    expect(stored2[1]!.parts[0]!.text).toBe(REQUEST);
  });

  it("asks for what is missing, then completes the drafts over several messages", async () => {
    const conversation = await newConversation();
    const first = await send(
      conversation.id,
      "I want to compare two versions of our signup page for accessibility",
    );
    const drafts = Conversation.parse(first.at(-2)!.data);
    expect(drafts.status).toBe("needs_review");
    expect(drafts.issues.map((i) => i.param)).toContain("evaluation.comparisonPairs");
    expect(textOf(first)).toContain("both designs to compare");

    const second = await send(conversation.id, "Here they are", [
      "https://example.com/signup-a",
      "https://example.com/signup-b",
    ]);
    const done = Conversation.parse(second.at(-2)!.data);
    expect(done.status).toBe("ready");
    expect(done.drafts.evaluation.comparisonPairs).toHaveLength(1);
    expect(done.drafts.templates.map((t) => t.templateId)).toEqual(["accessibility"]);
    expect(done.messageCount).toBe(4);
  });

  it("stores the whole reply when the client disconnects mid-stream", async () => {
    const conversation = await newConversation();
    const stream = await postStream(
      `${server.api}/conversations/${conversation.id}/messages`,
      message(REQUEST),
    );
    const start = await nextEvent(stream);
    expect(start?.event).toBe("message_start");
    stream.close();
    const { messageId } = start!.data as { messageId: string };
    const stored = await eventually(
      () => messages(conversation.id),
      (list) => list.find((m) => m.id === messageId)?.status === "complete",
    );
    expect(stored.find((m) => m.id === messageId)!.parts[0]!.text).toContain("Here is what I understood");
    const after = bodyOf(
      await call(Conversation, `${server.api}/conversations/${conversation.id}`, { headers: bearer(key) }),
    );
    expect(after.status).toBe("ready");
  });

  it("resumes after the last event a reconnecting client saw", async () => {
    const conversation = await newConversation();
    const full = await send(conversation.id, REQUEST);
    const body = message("ignored on resume");
    const url = `${server.api}/conversations/${conversation.id}/messages`;
    // From the second text delta on: the rest of the same reply, nothing stored twice.
    const resumed = await collect(await postStream(url, body, { "Last-Event-ID": full[1]!.id! }));
    expect(resumed.map((f) => f.id)).toEqual(full.slice(2).map((f) => f.id));
    expect(textOf(full.slice(0, 2)) + textOf(resumed)).toBe(textOf(full));
    expect(await messages(conversation.id)).toHaveLength(2);

    const bad = await postStream(url, body, { "Last-Event-ID": "msg_nothere:3" });
    expect(bad.response.status).toBe(400);
  });

  it("refuses oversized messages, a wrong role and other teams' conversations", async () => {
    const conversation = await newConversation();
    const url = `${server.api}/conversations/${conversation.id}/messages`;
    const post = (body: unknown) =>
      fetch(url, {
        method: "POST",
        headers: { ...bearer(key), "Content-Type": "application/json" },
        body: JSON.stringify(body),
      });
    const tooLong = await post({
      role: "user",
      parts: Array.from({ length: 3 }, () => ({ type: "text", text: "x".repeat(7000) })),
    });
    expect(tooLong.status).toBe(400);
    expect(((await tooLong.json()) as { error: { param: string } }).error.param).toBe("parts");
    const wrongRole = await post({ role: "assistant", parts: [{ type: "text", text: "hi" }] });
    expect(wrongRole.status).toBe(400);
    const huge = await post(message("y".repeat(70_000)));
    expect(huge.status).toBe(413);

    const other = await signUp(server, "builder-other");
    const otherKey = await mintApiKey(server, other, ["evaluations:*"]);
    const res = await call(z.never(), `${server.api}/conversations/${conversation.id}`, {
      headers: bearer(otherKey),
    });
    expectError(res, 404, { type: "not_found_error", code: "conversation_not_found" });
    const foreign = await fetch(url, {
      method: "POST",
      headers: { ...bearer(otherKey), "Content-Type": "application/json" },
      body: JSON.stringify(message("hello")),
    });
    expect(foreign.status).toBe(404);
  });
});

describe("materialize", () => {
  it("creates exactly one evaluation under concurrent calls, then the conversation is closed", async () => {
    const conversation = await newConversation();
    await send(conversation.id, REQUEST);
    const url = `${server.api}/conversations/${conversation.id}/evaluations`;
    const answers = await Promise.all(
      Array.from({ length: 6 }, () =>
        call(MaterializedConversation, url, { method: "POST", headers: bearer(key) }),
      ),
    );
    expect(answers.map((a) => a.status).sort()).toEqual([200, 200, 200, 200, 200, 201]);
    const ids = new Set(answers.map((a) => bodyOf(a).evaluationId));
    expect(ids.size).toBe(1);
    const created = bodyOf(answers.find((a) => a.status === 201)!);
    expect(created.conversation.status).toBe("materialized");
    expect(created.createdTemplateIds).toHaveLength(1);

    const evaluations = bodyOf(
      await call(EvaluationList, `${server.api}/evaluations?limit=100`, { headers: bearer(key) }),
    );
    expect(evaluations.data.filter((e) => e.id === created.evaluationId)).toHaveLength(1);
    const evaluation = bodyOf(
      await call(Evaluation, `${server.api}/evaluations/${created.evaluationId}`, { headers: bearer(key) }),
    );
    expect(evaluation).toMatchObject({
      status: "Draft",
      type: "SxS",
      comparisonCount: 1,
      evaluationMethod: "both",
    });
    expect(evaluation.selectedAutousers.map((a) => a.autouserId)).toEqual([
      "auto_mobile_shopper_slow_network",
      "auto_first_time_visitor",
    ]);
    expect(evaluation.selectedDimensionIds).toEqual(created.templateIds);
    expect(evaluation.templates.map((t) => t.name)).toEqual(["Content", "Trust"]);

    // It starts like any evaluation.
    const started = await call(Evaluation, `${server.api}/evaluations/${created.evaluationId}`, {
      method: "PATCH",
      headers: bearer(key),
      body: { status: "Running" },
    });
    expect(bodyOf(started).status).toBe("Running");

    const more = await postStream(
      `${server.api}/conversations/${conversation.id}/messages`,
      message("one more"),
    );
    expect(more.response.status).toBe(409);
  });

  it("refuses incomplete drafts and names what is missing; edited drafts follow the same rules", async () => {
    const conversation = await newConversation();
    const url = `${server.api}/conversations/${conversation.id}`;
    const patched = await call(Conversation, url, {
      method: "PATCH",
      headers: bearer(key),
      body: { drafts: { evaluation: { name: "Hero banner", type: "SSE" }, templates: [], autousers: [] } },
    });
    expect(bodyOf(patched).status).toBe("needs_review");
    expect(bodyOf(patched).issues).toEqual([{ param: "evaluation.designUrls", message: expect.any(String) }]);
    const refused = await call(z.never(), `${url}/evaluations`, { method: "POST", headers: bearer(key) });
    expectError(refused, 400, {
      type: "invalid_request_error",
      code: "conversation_not_ready",
      param: "evaluation.designUrls",
    });

    const badTemplate = await call(z.never(), url, {
      method: "PATCH",
      headers: bearer(key),
      body: { drafts: { evaluation: {}, templates: [{ ref: "x", template: { name: "" } }], autousers: [] } },
    });
    expectError(badTemplate, 400, { type: "invalid_request_error" });

    const unknown = await call(Conversation, url, {
      method: "PATCH",
      headers: bearer(key),
      body: {
        drafts: {
          evaluation: { name: "Hero", type: "SSE", designUrls: [{ url: "https://example.com/hero" }] },
          templates: [{ ref: "mine", templateId: "tpl_nothere" }],
          autousers: [],
        },
      },
    });
    expect(bodyOf(unknown).issues).toEqual([
      { param: "templates[0].templateId", message: "No such template: tpl_nothere." },
    ]);
    const ready = await call(Conversation, url, {
      method: "PATCH",
      headers: bearer(key),
      body: {
        drafts: {
          evaluation: { name: "Hero", type: "SSE", designUrls: [{ url: "https://example.com/hero" }] },
          templates: [{ ref: "overall", templateId: "overall" }],
          autousers: [],
        },
      },
    });
    expect(bodyOf(ready).status).toBe("ready");

    const archived = await call(Conversation, url, {
      method: "PATCH",
      headers: bearer(key),
      body: { status: "archived" },
    });
    expect(bodyOf(archived).status).toBe("archived");
    const closed = await call(z.never(), `${url}/evaluations`, { method: "POST", headers: bearer(key) });
    expectError(closed, 409, { type: "invalid_request_error", code: "conversation_closed" });
    const reopened = await call(Conversation, url, {
      method: "PATCH",
      headers: bearer(key),
      body: { status: "active" },
    });
    expect(bodyOf(reopened).status).toBe("ready");
    const list = bodyOf(
      await call(ConversationList, `${server.api}/conversations`, { headers: bearer(key) }),
    );
    expect(list.data.map((c) => c.id)).toContain(conversation.id);
  });
});
