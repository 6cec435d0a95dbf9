import { isIP } from "node:net";
import ipaddr from "ipaddr.js";

// IPv6 forms whose last 32 bits are an IPv4 address the packet really goes to, so that
// address decides: IPv4-mapped, IPv4-translated (RFC 6145), the well-known NAT64 prefix
// (RFC 6052) and the deprecated IPv4-compatible ::/96. ::/96 also holds :: and ::1, which
// unwrap into 0.0.0.0/8 and are refused with it.
const embedsIPv4 = ["::ffff:0:0/96", "::ffff:0:0:0/96", "64:ff9b::/96", "::/96"].map((range) =>
  ipaddr.IPv6.parseCIDR(range),
);

/**
 * Whether an IP address is public unicast, so a client-supplied URL may reach it. Refused:
 * unspecified, "this network", private, CGNAT, loopback, link-local (cloud metadata),
 * unique-local, site-local, multicast, broadcast, reserved, benchmarking and documentation
 * ranges, as ipaddr.js classifies them; IPv4-embedding IPv6 forms are judged by the IPv4
 * address inside. 6to4 (2002::/16), Teredo (2001::/32) and local-use NAT64 (64:ff9b:1::/48)
 * are refused whole: they tunnel to addresses of their own encoding, and no server a client
 * names needs them.
 */
export function isPublicAddress(address: string): boolean {
  // Node's check first: ipaddr.js also reads legacy forms ("0x7f.1") no resolver returns.
  const bare = address.replace(/%.*$/, "");
  const family = isIP(bare);
  if (family === 4) return ipaddr.IPv4.parse(bare).range() === "unicast";
  if (family !== 6) return false;
  const parsed = ipaddr.IPv6.parse(bare);
  if (embedsIPv4.some((range) => parsed.match(range))) {
    return ipaddr.fromByteArray(parsed.toByteArray().slice(12)).range() === "unicast";
  }
  return parsed.range() === "unicast";
}
