import { describe, expect, it } from "vitest";
import { chinaWallClock, providerTime } from "./china-time.js";

describe("providerTime", () => {
  it("reads Alipay's wall-clock times as China time and WeChat Pay's RFC 3339 with its offset", () => {
    expect(providerTime("2026-11-23 22:00:05")).toEqual(new Date("2026-11-23T14:00:05Z"));
    expect(providerTime("2026-11-23T22:00:05+08:00")).toEqual(new Date("2026-11-23T14:00:05Z"));
    expect(chinaWallClock(providerTime("2026-01-01 00:00:00")!)).toBe("2026-01-01T00:00:00");
  });

  it("answers undefined for absent or unreadable times", () => {
    expect(providerTime(undefined)).toBeUndefined();
    expect(providerTime("")).toBeUndefined();
    expect(providerTime("yesterday")).toBeUndefined();
  });
});
