import { describe, expect, it } from "vitest";
import { paramOf } from "./error-param";

describe("paramOf", () => {
  it("names a parameter as the API does: dots between keys, brackets around indexes", () => {
    expect(paramOf(["designUrls", 0, "url"])).toBe("designUrls[0].url");
    expect(paramOf(["name"])).toBe("name");
    expect(paramOf([0, "x"])).toBe("[0].x");
  });

  it("names nothing for the whole body", () => {
    expect(paramOf([])).toBeUndefined();
  });
});
