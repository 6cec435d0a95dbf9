import { randomUUID } from "node:crypto";
import { createLogger, type Redis } from "@gateway/platform";
import type { Caller } from "@gateway/proto/common/v1/common";
import { connectTestRedis, gatewayErrorOf } from "@gateway/stack";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RateLimiter } from "./rate-limits.js";

let redis: Redis;
const logger = createLogger("test", "silent");

beforeAll(async () => {
  redis = await connectTestRedis();
});
afterAll(async () => {
  await redis.quit();
});

// Limits count in one-minute windows aligned to the clock (Redis's, on this machine); a test
// that counts to a limit starts well before a window ends, so no reset lands in the middle.
async function awayFromWindowEdge() {
  const left = 60_000 - (Date.now() % 60_000);
  if (left < 10_000) await new Promise((done) => setTimeout(done, left + 100));
}

// A fresh namespace and account per test, so counters never carry over.
async function setup(leaseMs = 60_000) {
  await awayFromWindowEdge();
  const limiter = new RateLimiter(redis, `rl-${randomUUID()}`, leaseMs, logger);
  const accountId = randomUUID();
  const caller = (keyId = "key-1"): Caller => ({
    requestId: randomUUID(),
    accountId,
    keyId,
    modelGroup: "default",
    multiplierBasisPoints: 10_000,
  });
  return { limiter, caller };
}

describe("RateLimiter", () => {
  it("admits up to requests per minute, then refuses with the window's remaining time and headers", async () => {
    const { limiter, caller } = await setup();
    const limits = { requests_per_minute: 3, tokens_per_minute: 1_000 };
    for (let i = 0; i < 3; i += 1) await limiter.admit(caller(), limits, 10);
    const error = await gatewayErrorOf(limiter.admit(caller(), limits, 10));
    expect(error).toMatchObject({ httpStatus: 429, type: "requests", code: "rate_limit_exceeded" });
    expect(error.message).toContain("requests per minute on this API key");
    expect(error.retryAfterMs).toBeGreaterThan(0);
    expect(error.retryAfterMs).toBeLessThanOrEqual(60_000);
    expect(error.headers).toMatchObject({
      "x-ratelimit-limit-requests": "3",
      "x-ratelimit-remaining-requests": "0",
      "x-ratelimit-limit-tokens": "1000",
      "x-ratelimit-remaining-tokens": "970",
    });
  });

  it("answers an admitted request's headers, counting what remains on the busier of key and account", async () => {
    const { limiter, caller } = await setup();
    const limits = { requests_per_minute: 5, tokens_per_minute: 1_000 };
    const first = await limiter.admit(caller("key-a"), limits, 100);
    expect(first).toMatchObject({
      "x-ratelimit-limit-requests": "5",
      "x-ratelimit-remaining-requests": "4",
      "x-ratelimit-limit-tokens": "1000",
      "x-ratelimit-remaining-tokens": "900",
    });
    expect(first["x-ratelimit-reset-requests"]).toMatch(/^[\d.]+m?s$/);
    expect(first["x-ratelimit-reset-tokens"]).toMatch(/^[\d.]+m?s$/);
    // Another key of the account: its own window is fresh, the account's is not.
    const second = await limiter.admit(caller("key-b"), limits, 50);
    expect(second).toMatchObject({ "x-ratelimit-remaining-requests": "3", "x-ratelimit-remaining-tokens": "850" });
    expect(await limiter.admit(caller(), { concurrent_requests: 1 }, 0)).toEqual({});
    expect(await limiter.admit(caller(), {}, 0)).toEqual({});
  });

  it("refuses a request whose tokens would pass tokens per minute, and counts nothing for it", async () => {
    const { limiter, caller } = await setup();
    const limits = { tokens_per_minute: 100 };
    await limiter.admit(caller(), limits, 60);
    const error = await gatewayErrorOf(limiter.admit(caller(), limits, 50));
    expect(error).toMatchObject({ type: "tokens", code: "rate_limit_exceeded" });
    expect(error.message).toContain("tokens per minute");
    await limiter.admit(caller(), limits, 40);
  });

  it("shares the account's counters between its keys", async () => {
    const { limiter, caller } = await setup();
    // The per-key limit alone would admit both; the account limit is the same number, counted across keys.
    const limits = { requests_per_minute: 2 };
    await limiter.admit(caller("key-a"), limits, 0);
    await limiter.admit(caller("key-b"), limits, 0);
    const error = await gatewayErrorOf(limiter.admit(caller("key-c"), limits, 0));
    expect(error.message).toContain("on this account");
  });

  it("holds a concurrency slot until released", async () => {
    const { limiter, caller } = await setup();
    const limits = { concurrent_requests: 1 };
    const first = caller();
    await limiter.admit(first, limits, 0);
    const error = await gatewayErrorOf(limiter.admit(caller(), limits, 0));
    expect(error.message).toContain("concurrent requests");
    await limiter.release(first);
    await limiter.admit(caller(), limits, 0);
  });

  it("admits a request again in the slot it holds (edge sent it on to another router), and no other", async () => {
    const { limiter, caller } = await setup();
    const limits = { concurrent_requests: 1 };
    const first = caller();
    await limiter.admit(first, limits, 0);
    await limiter.admit(first, limits, 0);
    const error = await gatewayErrorOf(limiter.admit(caller(), limits, 0));
    expect(error.message).toContain("concurrent requests");
  });

  it("lets a slot whose request never ended lapse with its lease", async () => {
    const { limiter, caller } = await setup(100);
    const limits = { concurrent_requests: 1 };
    await limiter.admit(caller(), limits, 0);
    await gatewayErrorOf(limiter.admit(caller(), limits, 0));
    await new Promise((done) => setTimeout(done, 150));
    await limiter.admit(caller(), limits, 0);
  });

  it("is exact under concurrent admissions", async () => {
    const { limiter, caller } = await setup();
    const limits = { requests_per_minute: 5 };
    const outcomes = await Promise.allSettled(Array.from({ length: 20 }, () => limiter.admit(caller(), limits, 0)));
    expect(outcomes.filter((outcome) => outcome.status === "fulfilled")).toHaveLength(5);
  });
});
