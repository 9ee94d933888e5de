import { isPublicAddress, parseIpv6 } from "@rubricon/agents/network";
import { describe, expect, it } from "vitest";
import { checkWebhookUrl } from "./url-guard";

describe("isPublicAddress", () => {
  it.each([
    "0.0.0.0",
    "10.0.0.1",
    "100.64.1.1",
    "127.0.0.1",
    "127.255.255.254",
    "169.254.169.254",
    "172.16.0.1",
    "172.31.255.255",
    "192.0.0.8",
    "192.0.2.1",
    "192.168.0.1",
    "198.18.0.1",
    "198.51.100.7",
    "203.0.113.9",
    "224.0.0.1",
    "255.255.255.255",
    "::",
    "::1",
    "fe80::1",
    "fe80::1%eth0",
    "fc00::1",
    "fd12:3456::1",
    "ff02::1",
    "::ffff:127.0.0.1",
    "::ffff:7f00:1",
    "::ffff:10.0.0.1",
    "::ffff:169.254.169.254",
    "::127.0.0.1",
    "64:ff9b::7f00:1",
    "64:ff9b::a9fe:a9fe",
    "2002:7f00:1::",
    "2002:c0a8:101::1",
    "2001:db8::1",
    "2001::1",
    "100::1",
    "[::1]",
    "localhost",
    "not an address",
  ])("refuses %s", (address) => {
    expect(isPublicAddress(address)).toBe(false);
  });

  it.each([
    "93.184.216.34",
    "1.1.1.1",
    "172.32.0.1",
    "100.128.0.1",
    "2606:4700:4700::1111",
    "2a00:1450:4001:80b::200e",
    "::ffff:93.184.216.34",
    "64:ff9b::5db8:d822",
    "2002:5db8:d822::1",
    "[2606:4700:4700::1111]",
  ])("allows %s", (address) => {
    expect(isPublicAddress(address)).toBe(true);
  });
});

describe("parseIpv6", () => {
  it("expands :: and a dotted IPv4 tail", () => {
    expect(parseIpv6("::ffff:1.2.3.4")).toEqual([0, 0, 0, 0, 0, 0xffff, 0x0102, 0x0304]);
    expect(parseIpv6("2001:db8::1")).toEqual([0x2001, 0xdb8, 0, 0, 0, 0, 0, 1]);
    expect(parseIpv6("1:2:3:4:5:6:7:8")).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(parseIpv6("1::2::3")).toBeUndefined();
    expect(parseIpv6("1:2:3")).toBeUndefined();
  });
});

describe("checkWebhookUrl", () => {
  const resolveTo = (addresses: string[]) => async () => addresses;

  it("refuses a host when any of its addresses is not public", async () => {
    await expect(
      checkWebhookUrl("https://hooks.example.com/x", {
        allowPrivate: false,
        resolve: resolveTo(["93.184.216.34", "10.0.0.5"]),
      }),
    ).rejects.toMatchObject({ code: "webhook_url_invalid", param: "url" });
    await expect(
      checkWebhookUrl("https://hooks.example.com/x", {
        allowPrivate: false,
        resolve: resolveTo(["2606:4700:4700::1111", "::ffff:192.168.1.1"]),
      }),
    ).rejects.toMatchObject({ code: "webhook_url_invalid" });
  });

  it("refuses a host that does not resolve, and accepts one that resolves only to public addresses", async () => {
    await expect(
      checkWebhookUrl("https://nowhere.example/x", {
        allowPrivate: false,
        resolve: async () => {
          throw Object.assign(new Error("ENOTFOUND"), { code: "ENOTFOUND" });
        },
      }),
    ).rejects.toMatchObject({ code: "webhook_url_invalid" });
    await expect(
      checkWebhookUrl("https://hooks.example.com/x", {
        allowPrivate: false,
        resolve: resolveTo(["93.184.216.34", "2606:4700:4700::1111"]),
      }),
    ).resolves.toBe("https://hooks.example.com/x");
  });

  it("allows http and private addresses only when told to", async () => {
    await expect(checkWebhookUrl("http://127.0.0.1:4000/x", { allowPrivate: true })).resolves.toBe(
      "http://127.0.0.1:4000/x",
    );
    await expect(checkWebhookUrl("http://93.184.216.34/x", { allowPrivate: false })).rejects.toMatchObject({
      code: "webhook_url_invalid",
    });
  });
});
