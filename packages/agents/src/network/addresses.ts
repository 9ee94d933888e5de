import { isIP } from "node:net";

/**
 * Whether an IP address is on the public internet. Webhook deliveries and autouser browsers must not reach the
 * service's own network
 * (loopback, private, link-local, cloud metadata at 169.254.169.254, ...), so anything not plainly public is
 * refused, including IPv6 forms that embed an IPv4 address (mapped, NAT64, 6to4).
 */
export function isPublicAddress(address: string): boolean {
  const bare = address.replace(/^\[|\]$/g, "").replace(/%.*$/, "");
  const family = isIP(bare);
  if (family === 4) return isPublicIpv4(parseIpv4(bare)!);
  if (family === 6) {
    const groups = parseIpv6(bare);
    return groups !== undefined && isPublicIpv6(groups);
  }
  return false;
}

function parseIpv4(text: string): number[] | undefined {
  const parts = text.split(".").map(Number);
  return parts.length === 4 && parts.every((p) => Number.isInteger(p) && p >= 0 && p <= 255)
    ? parts
    : undefined;
}

/** [prefix, prefix length] pairs of IPv4 ranges that are not public (RFC 6890 special-purpose and friends). */
const IPV4_NON_PUBLIC: [number[], number][] = [
  [[0, 0, 0, 0], 8], // "this network"
  [[10, 0, 0, 0], 8], // private
  [[100, 64, 0, 0], 10], // carrier-grade NAT
  [[127, 0, 0, 0], 8], // loopback
  [[169, 254, 0, 0], 16], // link-local (cloud metadata services live here)
  [[172, 16, 0, 0], 12], // private
  [[192, 0, 0, 0], 24], // IETF protocol assignments
  [[192, 0, 2, 0], 24], // documentation
  [[192, 88, 99, 0], 24], // 6to4 relay anycast
  [[192, 168, 0, 0], 16], // private
  [[198, 18, 0, 0], 15], // benchmarking
  [[198, 51, 100, 0], 24], // documentation
  [[203, 0, 113, 0], 24], // documentation
  [[224, 0, 0, 0], 4], // multicast
  [[240, 0, 0, 0], 4], // reserved, including broadcast
];

function ipv4ToInt(parts: number[]): number {
  return ((parts[0]! << 24) | (parts[1]! << 16) | (parts[2]! << 8) | parts[3]!) >>> 0;
}

function isPublicIpv4(parts: number[]): boolean {
  const value = ipv4ToInt(parts);
  return !IPV4_NON_PUBLIC.some(([prefix, length]) => {
    const mask = length === 0 ? 0 : (~0 << (32 - length)) >>> 0;
    return (value & mask) >>> 0 === (ipv4ToInt(prefix) & mask) >>> 0;
  });
}

/** Eight 16-bit groups, or undefined when the text is not an IPv6 address. Handles `::` and a dotted IPv4 tail. */
export function parseIpv6(text: string): number[] | undefined {
  let value = text.toLowerCase();
  const lastColon = value.lastIndexOf(":");
  const last = value.slice(lastColon + 1);
  if (last.includes(".")) {
    const v4 = parseIpv4(last);
    if (!v4) return undefined;
    const hex = (a: number, b: number) => ((a << 8) | b).toString(16);
    value = `${value.slice(0, lastColon + 1)}${hex(v4[0]!, v4[1]!)}:${hex(v4[2]!, v4[3]!)}`;
  }
  const halves = value.split("::");
  if (halves.length > 2) return undefined;
  const toGroups = (s: string) =>
    s === ""
      ? []
      : s.split(":").map((g) => (/^[0-9a-f]{1,4}$/.test(g) ? Number.parseInt(g, 16) : Number.NaN));
  const left = toGroups(halves[0]!);
  const right = halves.length === 2 ? toGroups(halves[1]!) : [];
  if ([...left, ...right].some(Number.isNaN)) return undefined;
  const known = left.length + right.length;
  if (halves.length === 1 ? known !== 8 : known > 7) return undefined;
  return [...left, ...new Array<number>(8 - known).fill(0), ...right];
}

function embeddedIpv4(high: number, low: number): number[] {
  return [high >> 8, high & 0xff, low >> 8, low & 0xff];
}

function isPublicIpv6(g: number[]): boolean {
  const [g0, g1, g2, g3, g4, g5, g6, g7] = g as [
    number,
    number,
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const zeroUpTo = (n: number) => g.slice(0, n).every((x) => x === 0);
  // ::ffff:a.b.c.d (IPv4-mapped) and ::a.b.c.d (IPv4-compatible) are the IPv4 address in disguise.
  if (zeroUpTo(5) && g5 === 0xffff) return isPublicIpv4(embeddedIpv4(g6, g7));
  if (zeroUpTo(6)) return g6 !== 0 && isPublicIpv4(embeddedIpv4(g6, g7)); // also rules out :: and ::1
  // 64:ff9b::/96 is NAT64: the last 32 bits are the IPv4 address actually reached.
  if (g0 === 0x64 && g1 === 0xff9b && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0) {
    return isPublicIpv4(embeddedIpv4(g6, g7));
  }
  // 2002::/16 is 6to4, with the IPv4 address in bits 16-47.
  if (g0 === 0x2002) return isPublicIpv4(embeddedIpv4(g1, g2));
  // Only global unicast (2000::/3) is public; that excludes ULA fc00::/7, link-local fe80::/10, site-local,
  // multicast ff00::/8, discard 100::/64 and the local-use NAT64 prefix.
  if ((g0 & 0xe000) !== 0x2000) return false;
  if (g0 === 0x2001 && g1 === 0) return false; // Teredo tunnels
  if (g0 === 0x2001 && g1 === 0xdb8) return false; // documentation
  if ((g0 & 0xfff0) === 0x3ff0) return false; // documentation (3fff::/20)
  if (g0 === 0x2001 && g1 < 0x200) return false; // other IETF protocol assignments (2001::/23)
  return true;
}
