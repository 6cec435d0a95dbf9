import { GatewayError } from "@gateway/shared";
import { describe, expect, it } from "vitest";
import { FailedAuthThrottle } from "./failed-auth-throttle.js";

describe("FailedAuthThrottle", () => {
  it("refuses an address after its failures until the window ends", () => {
    let now = 1_000_000;
    const throttle = new FailedAuthThrottle({ maxFailures: 2, windowMs: 60_000 }, () => now);
    throttle.recordFailure("1.2.3.4");
    throttle.check("1.2.3.4");
    throttle.recordFailure("1.2.3.4");
    expect(() => throttle.check("1.2.3.4")).toThrow(GatewayError);
    throttle.check("5.6.7.8");
    now += 60_000;
    throttle.check("1.2.3.4");
  });

  it("forgets the oldest address beyond its bound", () => {
    const throttle = new FailedAuthThrottle({ maxFailures: 1, maxAddresses: 2 });
    for (const address of ["a", "b", "c"]) throttle.recordFailure(address);
    throttle.check("a");
    expect(() => throttle.check("c")).toThrow(GatewayError);
  });
});
