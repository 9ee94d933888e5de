import { EVENT_TYPES, type EventType } from "@rubricon/contracts";
import * as webhooks from "@rubricon/webhooks";
import { describe, expect, expectTypeOf, it } from "vitest";

// `@rubricon/webhooks` has no dependencies, so it keeps its own copy of the event types; this keeps the two equal.
describe("event types of @rubricon/webhooks", () => {
  it("are the contracts' event types", () => {
    expect([...webhooks.EVENT_TYPES].sort()).toEqual([...EVENT_TYPES].sort());
    expect(webhooks.EVENT_TYPES).toHaveLength(new Set(webhooks.EVENT_TYPES).size);
    expectTypeOf<webhooks.EventType>().toEqualTypeOf<EventType>();
    expectTypeOf<keyof webhooks.EventTypeMap>().toEqualTypeOf<EventType>();
  });
});
