import type { Channel } from "@gateway/catalogue";
import { channelKey } from "@gateway/catalogue";
import { invalidRequest, serviceUnavailable } from "@gateway/platform";
import { describe, expect, it } from "vitest";
import { InMemoryChannelDisabler } from "./channel-disabler.js";
import { ChannelHealth } from "./channel-health.js";
import { KeyRotation } from "./channel-keys.js";
import { backoffDelayMs } from "./retry-policy.js";
import { runWithFailover } from "./run-with-failover.js";

const channel = (name: string, priority: number, keys = [`${name}-key`]) =>
  ({ name, priority, weight: 1, keys: keys.map((secret) => channelKey(secret)) }) as Channel;
const retry = { maxAttempts: 3, baseDelayMs: 1, maxDelayMs: 5, deadlineMs: 5_000 };

function context(channels: Channel[], health = new ChannelHealth({ failureThreshold: 5, cooldownMs: 10_000 })) {
  const disabler = new InMemoryChannelDisabler();
  return {
    channels,
    health,
    keys: { rotation: new KeyRotation(disabler), disabler },
    retry,
    signal: new AbortController().signal,
    startedAt: Date.now(),
  };
}

describe("retries and failover", () => {
  it("moves to the next channel after a retryable failure", async () => {
    const tried: string[] = [];
    const result = await runWithFailover(context([channel("main", 0), channel("backup", 1)]), async (candidate) => {
      tried.push(candidate.name);
      if (candidate.name === "main") throw serviceUnavailable("down");
      return "ok";
    });
    expect(result).toBe("ok");
    expect(tried).toEqual(["main", "backup"]);
  });

  it("does not retry a client error", async () => {
    let attempts = 0;
    const failing = runWithFailover(context([channel("main", 0), channel("backup", 1)]), async () => {
      attempts += 1;
      throw invalidRequest("bad");
    });
    await expect(failing).rejects.toMatchObject({ httpStatus: 400 });
    expect(attempts).toBe(1);
  });

  it("stops after the bounded number of attempts with the last error", async () => {
    let attempts = 0;
    const failing = runWithFailover(context([channel("only", 0)]), async () => {
      attempts += 1;
      throw serviceUnavailable(`failure ${attempts}`, 1);
    });
    await expect(failing).rejects.toThrow("failure 3");
    expect(attempts).toBe(3);
  });

  it("hands a vendor's wait longer than its own backoff to the client instead of waiting it out", async () => {
    let attempts = 0;
    const withinDeadline = { ...context([channel("only", 0)]), retry: { ...retry, deadlineMs: 60_000 } };
    const failing = runWithFailover(withinDeadline, async () => {
      attempts += 1;
      throw serviceUnavailable("rate limited", 26_500);
    });
    await expect(failing).rejects.toMatchObject({ httpStatus: 503, retryAfterMs: 26_500 });
    expect(attempts).toBe(1);
  });

  it("skips a channel that is cooling down", async () => {
    const health = new ChannelHealth({ failureThreshold: 1, cooldownMs: 10_000 });
    health.recordFailure("main");
    const tried: string[] = [];
    await runWithFailover(context([channel("main", 0), channel("backup", 1)], health), async (candidate) => {
      tried.push(candidate.name);
      return "ok";
    });
    expect(tried).toEqual(["backup"]);
  });

  it("answers a retryable 503 when every channel is cooling down", async () => {
    const health = new ChannelHealth({ failureThreshold: 1, cooldownMs: 10_000 });
    health.recordFailure("main");
    const failing = runWithFailover(context([channel("main", 0)], health), async () => "never");
    await expect(failing).rejects.toMatchObject({ httpStatus: 503 });
  });

  it("backs off exponentially with jitter but never shorter than Retry-After", () => {
    const settings = { ...retry, baseDelayMs: 100, maxDelayMs: 1_000 };
    expect(backoffDelayMs(0, 0, settings, () => 1)).toBe(100);
    expect(backoffDelayMs(3, 0, settings, () => 1)).toBe(800);
    expect(backoffDelayMs(10, 0, settings, () => 1)).toBe(1_000);
    expect(backoffDelayMs(0, 2_000, settings, () => 0.5)).toBe(2_000);
  });
});
