import { describe, expect, it } from "vitest";
import { trustedProxiesSetting } from "./trusted-proxies.js";

describe("GATEWAY_TRUSTED_PROXIES and CONSOLE_TRUSTED_PROXIES", () => {
  it("trusts no one when unset or empty", () => {
    expect(trustedProxiesSetting.parse(undefined)).toBe(false);
    expect(trustedProxiesSetting.parse(" ")).toBe(false);
  });

  it("takes a hop count or a list of addresses, CIDRs and named ranges", () => {
    expect(trustedProxiesSetting.parse("2")).toBe(2);
    expect(trustedProxiesSetting.parse("loopback, 10.0.0.0/8,fd00::/8 ,192.0.2.7")).toEqual([
      "loopback",
      "10.0.0.0/8",
      "fd00::/8",
      "192.0.2.7",
    ]);
  });

  it.each(["true", "*", "0", "10.0.0.0/33", "ingress.example", "1.2.3"])("refuses %s", (value) => {
    expect(trustedProxiesSetting.safeParse(value).success).toBe(false);
  });
});
