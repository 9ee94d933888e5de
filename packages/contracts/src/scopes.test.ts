import { describe, expect, it } from "vitest";
import { type RequiredScope, SCOPES, scopeGrants } from "./scopes";

describe("scopeGrants", () => {
  it("grants the literal scope", () => {
    expect(scopeGrants(["evaluations:read"], "evaluations:read")).toBe(true);
  });

  it("grants through the family wildcard", () => {
    expect(scopeGrants(["evaluations:*"], "evaluations:read")).toBe(true);
    expect(scopeGrants(["evaluations:*"], "evaluations:write")).toBe(true);
  });

  it("grants everything through *", () => {
    const required = SCOPES.filter((s): s is RequiredScope => s !== "*" && !s.endsWith(":*"));
    for (const scope of required) expect(scopeGrants(["*"], scope)).toBe(true);
  });

  it("does not let read stand for write or the reverse", () => {
    expect(scopeGrants(["evaluations:read"], "evaluations:write")).toBe(false);
    expect(scopeGrants(["evaluations:write"], "evaluations:read")).toBe(false);
  });

  it("does not cross families", () => {
    expect(scopeGrants(["templates:*", "ratings:read"], "evaluations:read")).toBe(false);
    expect(scopeGrants(["evaluations:*"], "events:read")).toBe(false);
  });

  it("does not treat a family prefix or an empty list as a grant", () => {
    expect(scopeGrants([], "evaluations:read")).toBe(false);
    expect(scopeGrants(["evaluations"], "evaluations:read")).toBe(false);
    expect(scopeGrants(["eval:*"], "evaluations:read")).toBe(false);
    expect(scopeGrants(["evaluations:re*"], "evaluations:read")).toBe(false);
  });

  it("checks the literal scope, then the family wildcard, then *", () => {
    const seen: string[] = [];
    const held = new Proxy(["*"], {
      get(target, prop, receiver) {
        if (prop === "includes") {
          return (value: string) => {
            seen.push(value);
            return target.includes(value);
          };
        }
        return Reflect.get(target, prop, receiver);
      },
    });
    expect(scopeGrants(held, "autousers:write")).toBe(true);
    expect(seen).toEqual(["autousers:write", "autousers:*", "*"]);
  });
});
