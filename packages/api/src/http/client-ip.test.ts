import { describe, expect, it } from "vitest";
import { clientIp } from "./client-ip";

const xff = (value?: string) => new Headers(value === undefined ? {} : { "x-forwarded-for": value });

describe("clientIp", () => {
  it("takes the peer (the rightmost entry) when no proxy is trusted", () => {
    expect(clientIp(xff("198.51.100.9"), 0)).toBe("198.51.100.9");
    expect(clientIp(xff("6.6.6.6, 198.51.100.9"), 0)).toBe("198.51.100.9");
  });

  it("takes the entry the outermost trusted proxy wrote, whatever the client forged to its left", () => {
    expect(clientIp(xff("203.0.113.7"), 1)).toBe("203.0.113.7");
    expect(clientIp(xff("1.1.1.1, 2.2.2.2, 203.0.113.7"), 1)).toBe("203.0.113.7");
    expect(clientIp(xff("1.1.1.1, 203.0.113.7, 10.0.0.2"), 2)).toBe("203.0.113.7");
  });

  it("takes the leftmost entry when there are fewer entries than trusted proxies", () => {
    expect(clientIp(xff("203.0.113.7"), 3)).toBe("203.0.113.7");
  });

  it("answers null without the header or with only blanks", () => {
    expect(clientIp(xff(), 0)).toBeNull();
    expect(clientIp(xff(" , "), 1)).toBeNull();
  });

  it("treats an IPv4-mapped IPv6 address, a port and letter case as the same client", () => {
    expect(clientIp(xff("::ffff:203.0.113.7"), 0)).toBe("203.0.113.7");
    expect(clientIp(xff("203.0.113.7:51234"), 0)).toBe("203.0.113.7");
    expect(clientIp(xff("[2001:DB8::1]:443"), 0)).toBe("2001:db8::1");
    expect(clientIp(xff("2001:db8::1"), 0)).toBe("2001:db8::1");
  });
});
