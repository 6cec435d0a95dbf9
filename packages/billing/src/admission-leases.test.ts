import { randomUUID } from "node:crypto";
import { createLogger } from "@gateway/platform";
import type { Caller } from "@gateway/proto/common/v1/common";
import { gatewayErrorOf } from "@gateway/stack";
import { afterEach, describe, expect, it, vi } from "vitest";
import { billingTestServers } from "../test/billing-test-servers.js";
import { AdmissionLeases } from "./admission-leases.js";
import { billingKeys } from "./billing-keys.js";
import { giveBackToLeases } from "./lease-scripts.js";
import { Reservations } from "./reservations.js";

const servers = billingTestServers();
const logger = createLogger("test", "silent");
const open: AdmissionLeases[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((leases) => leases.close()));
});

async function setup(balance: bigint, maxMicros = 1_000n, lifeMs = 60_000) {
  const { redis, ledger } = servers;
  const namespace = `lease-${randomUUID()}`;
  const accountId = randomUUID();
  const keys = billingKeys(namespace, accountId);
  await redis.set(keys.balance, balance.toString());
  const reservations = new Reservations(redis, ledger, namespace, 60_000, logger);
  const router = () => {
    const leases = new AdmissionLeases(redis, reservations, namespace, { maxMicros, lifeMs, holdMs: 60_000 }, logger);
    open.push(leases);
    return leases;
  };
  const caller = (): Caller => ({
    requestId: randomUUID(),
    accountId,
    keyId: "k",
    modelGroup: "default",
    multiplierBasisPoints: 10_000,
  });
  const held = async () =>
    Object.values(await redis.hGetAll(keys.reservations)).reduce((sum, micros) => sum + BigInt(micros), 0n);
  return { reservations, router, caller, held, namespace, accountId };
}

describe("AdmissionLeases", () => {
  it("admits from a lease without a Redis call once the account's spend sized it", async () => {
    const { router, caller } = await setup(1_000_000n);
    const leases = router();
    for (let index = 0; index < 3; index += 1) await leases.take(caller(), 10n);
    // The third, half the second lease spent, renewed it ahead of need: sized to twice its spend.
    await new Promise((done) => setTimeout(done, 50));
    const calls = vi.spyOn(servers.redis, "evalSha");
    try {
      await leases.take(caller(), 10n);
      await leases.take(caller(), 10n);
      expect(calls).not.toHaveBeenCalled();
    } finally {
      calls.mockRestore();
    }
  });

  it("never grants more than the balance minus what is reserved, however many routers ask at once", async () => {
    const { router, caller, held } = await setup(1_000n, 400n);
    const routers = [router(), router()];
    const answers = await Promise.allSettled(
      Array.from({ length: 200 }, (_, index) => routers[index % 2]!.take(caller(), 7n)),
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
    for (let index = 0; index < 20; index += 1) admissions.push(await leases.take(caller(), 10n));
    await new Promise((done) => setTimeout(done, 50));
    await leases.close();
    expect(await held()).toBe(200n);
    // Ledger gives each request's worst case back as it commits its charge.
    const byLease = new Map<string, bigint>();
    for (const { id, micros } of admissions) byLease.set(id, (byLease.get(id) ?? 0n) + micros);
    await giveBackToLeases(servers.redis, namespace, accountId, byLease);
    expect(await held()).toBe(0n);
  });

  it("hands an idle account's rest back within a lease's life", async () => {
    const { router, caller, held } = await setup(1_000_000n, 1_000n, 200);
    const leases = router();
    await leases.take(caller(), 10n);
    await leases.take(caller(), 10n);
    expect(await held()).toBeGreaterThan(20n);
    await new Promise((done) => setTimeout(done, 500));
    expect(await held()).toBe(20n);
  });

  it("refuses, as a reservation does, a cost the balance cannot cover", async () => {
    const { router, caller } = await setup(100n);
    const refused = await gatewayErrorOf(router().take(caller(), 150n));
    expect(refused).toMatchObject({ httpStatus: 429, code: "insufficient_quota" });
  });
});
