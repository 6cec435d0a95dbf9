import { randomUUID } from "node:crypto";
import type { GroupLimits } from "@gateway/catalogue";
import { createLogger } from "@gateway/platform";
import type { Caller } from "@gateway/proto/common/v1/common";
import { gatewayErrorOf } from "@gateway/stack";
import { afterEach, describe, expect, it, vi } from "vitest";
import { billingTestServers } from "../test/billing-test-servers.js";
import { AdmissionLeases } from "./admission-leases.js";
import { billingKeys, rateLimitKeys } from "./billing-keys.js";
import { giveBackToLeases, moneyRests } from "./lease-scripts.js";
import { RateLimiter, rateWindowMs } from "./rate-limits.js";
import { Reservations } from "./reservations.js";

const servers = billingTestServers();
const logger = createLogger("test", "silent");
const open: AdmissionLeases[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((leases) => leases.close()));
});

const unlimited: GroupLimits = {};

// A test that counts to a per-minute limit starts well before a window ends.
async function awayFromWindowEdge() {
  const left = rateWindowMs - (Date.now() % rateWindowMs);
  if (left < 10_000) await new Promise((done) => setTimeout(done, left + 100));
}

async function setup(balance: bigint, maxMicros = 1_000n, lifeMs = 60_000, cap?: { capMicros: bigint; spent: bigint }) {
  const { redis, ledger } = servers;
  const namespace = `lease-${randomUUID()}`;
  const accountId = randomUUID();
  const keys = billingKeys(namespace, accountId);
  await redis.set(keys.balance, balance.toString());
  if (cap) await redis.set(keys.keySpent("k"), cap.spent.toString());
  const reservations = new Reservations(redis, ledger, namespace, 60_000, logger);
  const rateLimits = new RateLimiter(redis, namespace, 60_000, logger);
  const router = () => {
    const leases = new AdmissionLeases(
      redis,
      reservations,
      rateLimits,
      namespace,
      { maxMicros, lifeMs, holdMs: 60_000, orphanMs: 60_000 },
      logger,
    );
    open.push(leases);
    return leases;
  };
  const caller = (keyId = "k"): Caller => ({
    requestId: randomUUID(),
    accountId,
    keyId,
    modelGroup: "default",
    multiplierBasisPoints: 10_000,
    ...(cap && { keySpendCapMicros: Number(cap.capMicros) }),
  });
  const held = async () =>
    Object.values(await redis.hGetAll(keys.reservations)).reduce((sum, micros) => sum + BigInt(micros), 0n);
  const limitKeys = rateLimitKeys(namespace, accountId, "k");
  const windowCount = async () => Number((await redis.hGet(limitKeys.accountWindow, "requests")) ?? 0);
  const slotsHeld = async () =>
    Math.max(await redis.zCard(limitKeys.keySlots), await redis.zCard(limitKeys.accountSlots));
  return { reservations, router, caller, held, windowCount, slotsHeld, namespace, accountId };
}

const take = (leases: AdmissionLeases, caller: Caller, micros: bigint, limits = unlimited, tokens = 10) =>
  leases.take(caller, limits, tokens, micros);

describe("AdmissionLeases", () => {
  it("admits from a lease without a Redis call once the account's spend sized it", async () => {
    const { router, caller } = await setup(1_000_000n);
    const leases = router();
    for (let index = 0; index < 3; index += 1) await take(leases, caller(), 10n);
    // The third, half the second lease spent, renewed it ahead of need: sized to twice its spend.
    await new Promise((done) => setTimeout(done, 50));
    const calls = vi.spyOn(servers.redis, "evalSha");
    try {
      await take(leases, caller(), 10n);
      await take(leases, caller(), 10n);
      expect(calls).not.toHaveBeenCalled();
    } finally {
      calls.mockRestore();
    }
  });

  it("never grants more than the balance minus what is reserved, however many routers ask at once", async () => {
    const { router, caller, held } = await setup(1_000n, 400n);
    const routers = [router(), router()];
    const answers = await Promise.allSettled(
      Array.from({ length: 200 }, (_, index) => take(routers[index % 2]!, caller(), 7n)),
    );
    const admitted = answers.filter((answer) => answer.status === "fulfilled").length;
    expect(admitted * 7).toBeLessThanOrEqual(1_000);
    expect(admitted).toBeGreaterThan(0);
    expect(await held()).toBeLessThanOrEqual(1_000n);
    for (const answer of answers) {
      if (answer.status === "rejected") expect(answer.reason).toMatchObject({ code: "insufficient_quota" });
    }
  });

  it("hands the unspent rest back on drain, keeping what requests took until they settle", async () => {
    const { router, caller, held, namespace, accountId } = await setup(1_000_000n);
    const leases = router();
    const admissions = [];
    for (let index = 0; index < 20; index += 1) admissions.push((await take(leases, caller(), 10n)).admission);
    await new Promise((done) => setTimeout(done, 50));
    await leases.close();
    expect(await held()).toBe(200n);
    // Ledger gives each request's worst case back as it commits its charge.
    const byLease = new Map<string, bigint>();
    for (const { id, micros } of admissions) byLease.set(id, (byLease.get(id) ?? 0n) + micros);
    await giveBackToLeases(servers.redis, namespace, { accountId, keyId: "k" }, moneyRests(byLease));
    expect(await held()).toBe(0n);
  });

  it("hands an idle account's rest back within a lease's life", async () => {
    const { router, caller, held } = await setup(1_000_000n, 1_000n, 200);
    const leases = router();
    await take(leases, caller(), 10n);
    await take(leases, caller(), 10n);
    expect(await held()).toBeGreaterThan(20n);
    await new Promise((done) => setTimeout(done, 500));
    expect(await held()).toBe(20n);
  });

  it("refuses, as a reservation does, a cost the balance cannot cover", async () => {
    const { router, caller } = await setup(100n);
    const refused = await gatewayErrorOf(take(router(), caller(), 150n));
    expect(refused).toMatchObject({ httpStatus: 429, code: "insufficient_quota" });
  });

  it("never admits more than requests per minute, however many routers race for the window", async () => {
    await awayFromWindowEdge();
    const { router, caller, windowCount } = await setup(1_000_000_000n, 1_000_000n);
    const limits = { requests_per_minute: 50 };
    const routers = [router(), router()];
    // A few in turn first, so the leases are sized by recent admissions when the race starts.
    for (let index = 0; index < 6; index += 1) await take(routers[index % 2]!, caller(), 10n, limits);
    const answers = await Promise.allSettled(
      Array.from({ length: 200 }, (_, index) => take(routers[index % 2]!, caller(), 10n, limits)),
    );
    const admitted = 6 + answers.filter((answer) => answer.status === "fulfilled").length;
    expect(admitted).toBeLessThanOrEqual(50);
    expect(await windowCount()).toBeLessThanOrEqual(50);
    for (const answer of answers) {
      if (answer.status === "rejected") expect(answer.reason).toMatchObject({ code: "rate_limit_exceeded" });
    }
    // Drained, every unspent request goes back to the window: only the admitted ones stay counted.
    await Promise.all(routers.map((leases) => leases.close()));
    expect(await windowCount()).toBe(admitted);
  });

  it("answers the x-ratelimit headers from the lease as a Redis admission would", async () => {
    await awayFromWindowEdge();
    const { router, caller } = await setup(1_000_000n);
    const leases = router();
    const limits = { requests_per_minute: 3, tokens_per_minute: 1_000 };
    const remaining = [];
    for (let index = 0; index < 3; index += 1) {
      remaining.push((await take(leases, caller(), 10n, limits, 100)).headers["x-ratelimit-remaining-requests"]);
    }
    expect(remaining).toEqual(["2", "1", "0"]);
    const refused = await gatewayErrorOf(take(leases, caller(), 10n, limits, 100));
    expect(refused).toMatchObject({ httpStatus: 429, type: "requests", code: "rate_limit_exceeded" });
    expect(refused.message).toContain("requests per minute on this API key");
  });

  it("hands the account's other keys' unspent slices back before refusing a request for the account's limit", async () => {
    await awayFromWindowEdge();
    const { router, caller } = await setup(1_000_000n);
    const leases = router();
    const limits = { requests_per_minute: 3 };
    await take(leases, caller("one"), 10n, limits);
    // The second lease of key one is sliced for two requests: one stays unspent.
    await take(leases, caller("one"), 10n, limits);
    await take(leases, caller("two"), 10n, limits);
    const refused = await gatewayErrorOf(take(leases, caller("two"), 10n, limits));
    expect(refused.message).toContain("requests per minute on this account");
  });

  it("never holds more requests at once than the concurrency limit, however many routers race for slots", async () => {
    const { router, caller, slotsHeld } = await setup(1_000_000_000n, 1_000_000n);
    const limits = { concurrent_requests: 3 };
    const routers = [router(), router()];
    const callers = Array.from({ length: 200 }, caller);
    const answers = await Promise.allSettled(
      callers.map((each, index) => take(routers[index % 2]!, each, 10n, limits)),
    );
    const admitted = callers.filter((_, index) => answers[index]!.status === "fulfilled");
    expect(admitted).toHaveLength(3);
    expect(await slotsHeld()).toBe(3);
    for (const answer of answers) {
      if (answer.status === "rejected") expect(answer.reason).toMatchObject({ code: "rate_limit_exceeded" });
    }
    // A request's end gives its slot to its router's pool: the next request there takes that one, not a fourth.
    const first = admitted[0]!;
    const owner = callers.indexOf(first) % 2;
    expect(routers[owner]!.release(first.requestId)).toBe(true);
    await take(routers[owner]!, caller(), 10n, limits);
    expect(await slotsHeld()).toBe(3);
    expect(await gatewayErrorOf(take(routers[1 - owner]!, caller(), 10n, limits))).toMatchObject({
      code: "rate_limit_exceeded",
    });
  });

  it("lends a freed concurrency slot to the next request without a Redis call", async () => {
    const { router, caller, slotsHeld } = await setup(1_000_000n);
    const leases = router();
    const limits = { concurrent_requests: 3 };
    const oneAtATime = async () => {
      const request = caller();
      await take(leases, request, 10n, limits);
      expect(leases.release(request.requestId)).toBe(true);
    };
    for (let index = 0; index < 3; index += 1) await oneAtATime();
    await new Promise((done) => setTimeout(done, 50));
    const calls = vi.spyOn(servers.redis, "evalSha");
    try {
      await oneAtATime();
      await oneAtATime();
      expect(calls).not.toHaveBeenCalled();
    } finally {
      calls.mockRestore();
    }
    expect(await slotsHeld()).toBe(1);
  });

  // A key under a concurrency limit whose one request ended: its router holds the slot free, leases living 200 ms.
  async function keyWithAFreeSlot() {
    const { router, caller, slotsHeld } = await setup(1_000_000n, 1_000n, 200);
    const leases = router();
    const request = caller();
    await take(leases, request, 10n, { concurrent_requests: 3 });
    leases.release(request.requestId);
    return slotsHeld;
  }

  it("hands an idle key's free slots back within a lease's life", async () => {
    const slotsHeld = await keyWithAFreeSlot();
    expect(await slotsHeld()).toBe(1);
    await new Promise((done) => setTimeout(done, 500));
    expect(await slotsHeld()).toBe(0);
  });

  it("hands an idle key's free slots back once Redis answers again after failing to take them", async () => {
    const slotsHeld = await keyWithAFreeSlot();
    const failing = vi.spyOn(servers.redis, "evalSha").mockRejectedValueOnce(new Error("connection lost"));
    try {
      await new Promise((done) => setTimeout(done, 700));
    } finally {
      failing.mockRestore();
    }
    expect(await slotsHeld()).toBe(0);
  });

  it("never grants a capped key more than its cap minus what it spent, however many routers ask at once", async () => {
    const { router, caller, held } = await setup(1_000_000n, 400n, 60_000, { capMicros: 1_000n, spent: 300n });
    const routers = [router(), router()];
    const answers = await Promise.allSettled(
      Array.from({ length: 200 }, (_, index) => take(routers[index % 2]!, caller(), 7n)),
    );
    const admitted = answers.filter((answer) => answer.status === "fulfilled").length;
    expect(admitted * 7).toBeLessThanOrEqual(700);
    expect(admitted).toBeGreaterThan(0);
    expect(await held()).toBeLessThanOrEqual(700n);
    for (const answer of answers) {
      if (answer.status === "rejected") expect(answer.reason.message).toContain("spending cap");
    }
  });
});
