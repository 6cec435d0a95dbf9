import { BlockList, isIP } from "node:net";

/**
 * Addresses no client-supplied URL may reach: unspecified, "this network", private, CGNAT, loopback,
 * link-local (cloud metadata), unique-local, site-local, multicast, reserved and documentation
 * ranges. IPv6 forms that embed an IPv4 address are unwrapped first (see embeddedIPv4).
 */
const nonPublic = new BlockList();
// biome-ignore format: one range a line reads best
const nonPublicRanges: [string, number, "ipv4" | "ipv6"][] = [
  ["0.0.0.0", 8, "ipv4"], ["10.0.0.0", 8, "ipv4"], ["100.64.0.0", 10, "ipv4"], ["127.0.0.0", 8, "ipv4"],
  ["169.254.0.0", 16, "ipv4"], ["172.16.0.0", 12, "ipv4"], ["192.0.0.0", 24, "ipv4"], ["192.0.2.0", 24, "ipv4"],
  ["192.88.99.0", 24, "ipv4"], ["192.168.0.0", 16, "ipv4"], ["198.18.0.0", 15, "ipv4"], ["198.51.100.0", 24, "ipv4"],
  ["203.0.113.0", 24, "ipv4"], ["224.0.0.0", 4, "ipv4"], ["240.0.0.0", 4, "ipv4"],
  ["::", 128, "ipv6"], ["::1", 128, "ipv6"], ["100::", 64, "ipv6"], ["2001::", 32, "ipv6"], ["2001:db8::", 32, "ipv6"],
  ["2002::", 16, "ipv6"], ["fc00::", 7, "ipv6"], ["fe80::", 10, "ipv6"], ["fec0::", 10, "ipv6"], ["ff00::", 8, "ipv6"],
];
for (const [network, prefix, family] of nonPublicRanges) nonPublic.addSubnet(network, prefix, family);

/** The 16 bytes of an IPv6 address (already known to be valid), or undefined. */
function ipv6Bytes(address: string): number[] | undefined {
  let text = address;
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = "", tail] = text.split("::");
  const groups = (side: string) => (side === "" ? [] : side.split(":").map((group) => Number.parseInt(group, 16)));
  const left = groups(head);
  const right = tail === undefined ? [] : groups(tail);
  const all = [...left, ...new Array(8 - left.length - right.length).fill(0), ...right];
  if (all.length !== 8) return undefined;
  return all.flatMap((group) => [group >> 8, group & 0xff]);
}

/** The IPv4 address inside an IPv4-mapped (::ffff:0:0/96), -compatible (::/96) or NAT64 (64:ff9b::/96) address. */
function embeddedIPv4(address: string): string | undefined {
  const bytes = ipv6Bytes(address);
  if (!bytes) return undefined;
  const prefix = bytes.slice(0, 12);
  const zeros = prefix.slice(0, 10).every((byte) => byte === 0);
  const mapped = zeros && prefix[10] === 0xff && prefix[11] === 0xff;
  const compatible = zeros && prefix[10] === 0 && prefix[11] === 0;
  const nat64 = prefix.join(",") === "0,100,255,155,0,0,0,0,0,0,0,0";
  return mapped || compatible || nat64 ? bytes.slice(12).join(".") : undefined;
}

/** Whether an IP address is a public unicast address a client-supplied URL may reach. */
export function isPublicAddress(address: string): boolean {
  const bare = address.replace(/%.*$/, "");
  const family = isIP(bare);
  if (family === 4) return !nonPublic.check(bare, "ipv4");
  if (family !== 6) return false;
  const inner = embeddedIPv4(bare);
  if (inner !== undefined) return !nonPublic.check(inner, "ipv4");
  return !nonPublic.check(bare, "ipv6");
}
