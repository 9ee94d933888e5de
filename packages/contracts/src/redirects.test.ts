import { describe, expect, it } from "vitest";
import { sameOriginPath } from "./redirects";

const origin = "https://rubricon.example";

describe("sameOriginPath", () => {
  it("keeps paths on the site, with their query and fragment", () => {
    expect(sameOriginPath("/evaluations/eval_1?tab=results#top", origin)).toBe(
      "/evaluations/eval_1?tab=results#top",
    );
    expect(sameOriginPath("/share/tok", origin)).toBe("/share/tok");
    expect(sameOriginPath(`${origin}/templates`, origin)).toBe("/templates");
  });

  it("refuses every way of naming another host", () => {
    for (const next of [
      "//evil.example",
      "/\\evil.example",
      "/\t/evil.example",
      "\\\\evil.example",
      "https://evil.example/evaluations",
      "http://rubricon.example/evaluations",
      "javascript:alert(1)",
      "/%5Cevil.example".replace("%5C", "\\"),
      "/.//127.0.0.1:4151/pwned",
      "/%2e//127.0.0.1:4151/pwned",
      "/%2E//evil.example",
      "/./\\evil.example",
      "/a/..//evil.example",
      "/a/%2e%2e//evil.example",
      "./..//evil.example",
    ]) {
      expect(sameOriginPath(next, origin), next).toBe("/evaluations");
    }
  });

  it("falls back when there is nothing to go to", () => {
    expect(sameOriginPath(null, origin)).toBe("/evaluations");
    expect(sameOriginPath("", origin, "/")).toBe("/");
  });
});
