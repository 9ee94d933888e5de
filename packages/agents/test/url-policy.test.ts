import { describe, expect, it } from "vitest";
import { fleschReadingEase, publicUrlsOnly } from "../src";

describe("publicUrlsOnly", () => {
  const resolveTo = (map: Record<string, string[]>) => async (host: string) => {
    const found = map[host];
    if (!found) throw Object.assign(new Error("ENOTFOUND"), { code: "ENOTFOUND" });
    return found;
  };
  const allowed = publicUrlsOnly(
    resolveTo({
      "shop.example.com": ["93.184.216.34", "2606:4700:4700::1111"],
      "sneaky.example.com": ["93.184.216.34", "10.0.0.7"],
      "metadata.example.com": ["169.254.169.254"],
    }),
  );

  it.each([
    ["https://shop.example.com/cart", true],
    ["http://93.184.216.34/", true],
    ["data:image/png;base64,AAAA", true],
    ["about:blank", true],
    ["http://127.0.0.1:3000/", false],
    ["http://[::1]/", false],
    ["http://169.254.169.254/latest/meta-data/", false],
    ["http://[::ffff:192.168.1.1]/", false],
    ["https://sneaky.example.com/", false],
    ["https://metadata.example.com/", false],
    ["https://nowhere.example.com/", false],
    ["https://user:pw@shop.example.com/", false],
    ["file:///etc/passwd", false],
    ["ftp://shop.example.com/", false],
    ["not a url", false],
  ])("%s → %s", async (url, expected) => {
    expect(await allowed(url)).toBe(expected);
  });
});

describe("fleschReadingEase", () => {
  it("rates short plain sentences easier than long technical ones, and needs enough words", () => {
    const plain =
      "We pack the tea. It comes in two days. You can stop at any time. The tea is good and fresh to drink.";
    const dense =
      "Notwithstanding organisational considerations, subscription modifications necessitate administrative authorisation beforehand, including comprehensive documentation.";
    expect(fleschReadingEase(plain)).toBeGreaterThan(90);
    expect(fleschReadingEase(`${dense} ${dense}`)).toBeLessThan(0);
    expect(fleschReadingEase("Too short.")).toBeNull();
  });
});
