import { describe, expect, it } from "vitest";
import { ChannelHealth } from "./channel-health.js";

function clockedHealth() {
  const clock = { now: 1_000 };
  const health = new ChannelHealth({ failureThreshold: 2, cooldownMs: 500 }, () => clock.now);
  return { clock, health };
}

describe("channel circuit breaking", () => {
  it("stays closed below the failure threshold and resets on success", () => {
    const { health } = clockedHealth();
    health.recordFailure("a");
    health.recordSuccess("a");
    health.recordFailure("a");
    expect(health.tryAcquire("a")).toBe(true);
  });

  it("opens after consecutive failures, then lets exactly one probe through after the cooldown", () => {
    const { clock, health } = clockedHealth();
    health.recordFailure("a");
    health.recordFailure("a");
    expect(health.tryAcquire("a")).toBe(false);
    expect(health.waitMs("a")).toBe(500);
    clock.now += 500;
    expect(health.tryAcquire("a")).toBe(true);
    expect(health.tryAcquire("a")).toBe(false);
    health.recordSuccess("a");
    expect(health.tryAcquire("a")).toBe(true);
  });

  it("reopens when the probe fails", () => {
    const { clock, health } = clockedHealth();
    health.recordFailure("a");
    health.recordFailure("a");
    clock.now += 500;
    expect(health.tryAcquire("a")).toBe(true);
    health.recordFailure("a");
    expect(health.tryAcquire("a")).toBe(false);
    clock.now += 500;
    expect(health.tryAcquire("a")).toBe(true);
  });

  it("gives the probe back when a request ends without a verdict", () => {
    const { clock, health } = clockedHealth();
    health.recordFailure("a");
    health.recordFailure("a");
    clock.now += 500;
    health.tryAcquire("a");
    health.release("a");
    expect(health.tryAcquire("a")).toBe(true);
  });

  it("shows each channel's circuit as metrics read it: closed, open, then half-open once the cooldown ends", () => {
    const { clock, health } = clockedHealth();
    const circuitOf = (channel: string) => [...health.snapshots()].find((snapshot) => snapshot.channel === channel);
    health.recordSuccess("b");
    health.recordFailure("a");
    expect(circuitOf("a")).toEqual({ channel: "a", circuit: 0, consecutiveFailures: 1 });
    health.recordFailure("a");
    expect(circuitOf("a")).toMatchObject({ circuit: 1, consecutiveFailures: 2 });
    clock.now += 500;
    expect(circuitOf("a")).toMatchObject({ circuit: 2 });
    expect(health.tryAcquire("a")).toBe(true);
    expect(circuitOf("a")).toMatchObject({ circuit: 2 });
    expect(circuitOf("b")).toEqual({ channel: "b", circuit: 0, consecutiveFailures: 0 });
  });
});
