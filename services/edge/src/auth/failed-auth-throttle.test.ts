import { describe, expect, it } from "vitest";
import { FailedAuthThrottle } from "./failed-auth-throttle.js";

describe("FailedAuthThrottle", () => {
  it("puts an address over its limit after its failures until the window ends", () => {
    let now = 1_000_000;
    const throttle = new FailedAuthThrottle({ maxFailures: 2, windowMs: 60_000 }, () => now);
    throttle.recordFailure("1.2.3.4");
    expect(throttle.isOverLimit("1.2.3.4")).toBe(false);
    throttle.recordFailure("1.2.3.4");
    expect(throttle.isOverLimit("1.2.3.4")).toBe(true);
    expect(throttle.isOverLimit("5.6.7.8")).toBe(false);
    now += 15_000;
    const refusal = throttle.refusal("1.2.3.4");
    expect(refusal).toMatchObject({ httpStatus: 429, code: "rate_limit_exceeded", retryAfterMs: 45_000 });
    now += 45_000;
    expect(throttle.isOverLimit("1.2.3.4")).toBe(false);
  });

  it("forgets the oldest address beyond its bound", () => {
    const throttle = new FailedAuthThrottle({ maxFailures: 1, maxAddresses: 2 });
    for (const address of ["a", "b", "c"]) throttle.recordFailure(address);
    expect(throttle.isOverLimit("a")).toBe(false);
    expect(throttle.isOverLimit("c")).toBe(true);
  });
});
