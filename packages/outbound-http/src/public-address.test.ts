import { describe, expect, it } from "vitest";
import { isPublicAddress } from "./public-address.js";

describe("which addresses are public", () => {
  it.each([
    ["127.0.0.1", "IPv4 loopback"],
    ["10.1.2.3", "private"],
    ["172.16.0.1", "private"],
    ["192.168.1.1", "private"],
    ["169.254.169.254", "link-local (cloud metadata)"],
    ["100.64.0.1", "CGNAT"],
    ["0.0.0.0", "unspecified"],
    ["0.1.2.3", "this network"],
    ["224.0.0.1", "IPv4 multicast"],
    ["255.255.255.255", "broadcast"],
    ["192.0.2.1", "documentation"],
    ["198.18.0.1", "benchmarking"],
    ["240.0.0.1", "reserved"],
    ["::", "IPv6 unspecified"],
    ["::1", "IPv6 loopback"],
    ["fc00::1", "unique-local"],
    ["fd00:ec2::254", "unique-local (cloud metadata)"],
    ["fe80::1", "IPv6 link-local"],
    ["fe80::1%eth0", "IPv6 link-local with a zone"],
    ["fec0::1", "site-local"],
    ["ff02::1", "IPv6 multicast"],
    ["2001:db8::1", "IPv6 documentation"],
    ["::ffff:127.0.0.1", "IPv4-mapped loopback"],
    ["::ffff:7f00:1", "IPv4-mapped loopback, in hex"],
    ["::ffff:a9fe:a9fe", "IPv4-mapped link-local"],
    ["::ffff:0:127.0.0.1", "IPv4-translated loopback"],
    ["::ffff:0:a00:1", "IPv4-translated private"],
    ["::127.0.0.1", "IPv4-compatible loopback"],
    ["::a00:1", "IPv4-compatible private"],
    ["::0.0.0.1", "IPv4-compatible this-network"],
    ["64:ff9b::127.0.0.1", "NAT64 loopback"],
    ["64:ff9b::a00:1", "NAT64 private"],
    ["64:ff9b::a9fe:a9fe", "NAT64 link-local"],
    ["64:ff9b:1::a00:1", "local-use NAT64"],
    ["2002:7f00:1::1", "6to4 of loopback"],
    ["2002:a00:1::1", "6to4 of a private address"],
    ["2002:808:808::1", "6to4 of a public address (relays are refused whole)"],
    ["2001:0:4136:e378:8000:63bf:80ff:fffe", "Teredo of loopback"],
    ["2001:0:4136:e378:8000:63bf:3fff:fdd2", "Teredo of a public address"],
    ["not-an-ip", "not an address"],
    ["0x7f000001", "a legacy IPv4 spelling no resolver returns"],
    ["127.1", "a short IPv4 spelling no resolver returns"],
  ])("refuses %s (%s)", (address) => {
    expect(isPublicAddress(address)).toBe(false);
  });

  it.each([
    "8.8.8.8",
    "142.250.74.46",
    "2001:4860:4860::8888",
    "2a00:1450:4007:80b::200e",
    "::ffff:8.8.8.8",
    "::ffff:0:8.8.8.8",
    "64:ff9b::8.8.8.8",
  ])("allows %s", (address) => {
    expect(isPublicAddress(address)).toBe(true);
  });
});
