import { randomUUID } from "node:crypto";
import type { Caller } from "@gateway/proto/common/v1/common";
import { LedgerServiceClient } from "@gateway/proto/ledger/v1/ledger";
import { billingKeys, createLogger, insecureChannel, type Redis } from "@gateway/shared";
import { connectTestRedis, gatewayErrorOf } from "@gateway/stack";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Reservations } from "./reservations.js";

let redis: Redis;
// Balances and spent totals are put in Redis by each test, so ledger is never asked; this
// client points nowhere and would fail the test if it were.
const ledger = new LedgerServiceClient("127.0.0.1:9", insecureChannel());
const logger = createLogger("test", "silent");
const YUAN = 1_000_000n;

beforeAll(async () => {
  redis = await connectTestRedis();
});
afterAll(async () => {
  ledger.close();
  await redis.quit();
});

// A fresh namespace and account per test, with its balance (and a capped key's spent total) loaded.
async function setup(balance: bigint, spent?: { keyId: string; micros: bigint }) {
  const namespace = `rsv-${randomUUID()}`;
  const accountId = randomUUID();
  const keys = billingKeys(namespace, accountId);
  await redis.set(keys.balance, balance.toString());
  if (spent) await redis.set(keys.keySpent(spent.keyId), spent.micros.toString());
  const reservations = new Reservations(redis, ledger, namespace, 60_000, logger);
  const caller = (keyId: string, capMicros?: bigint): Caller => ({
    requestId: randomUUID(),
    accountId,
    keyId,
    modelGroup: "default",
    multiplierBasisPoints: 10_000,
    ...(capMicros !== undefined && { keySpendCapMicros: Number(capMicros) }),
  });
  return { reservations, caller, keys };
}

describe("Reservations", () => {
  it("refuses what the balance minus open reservations cannot cover", async () => {
    const { reservations, caller } = await setup(10n * YUAN);
    await reservations.reserve(caller("k"), 6n * YUAN);
    const refused = await gatewayErrorOf(reservations.reserve(caller("k"), 5n * YUAN));
    expect(refused).toMatchObject({ httpStatus: 429, code: "insufficient_quota" });
    expect(refused.message).toContain("4.000000 yuan is available");
  });

  it("holds a capped key to its cap minus what it spent and has reserved, while other keys go on", async () => {
    const { reservations, caller } = await setup(100n * YUAN, { keyId: "capped", micros: 6n * YUAN });
    await reservations.reserve(caller("capped", 10n * YUAN), 3n * YUAN);
    const refused = await gatewayErrorOf(reservations.reserve(caller("capped", 10n * YUAN), 2n * YUAN));
    expect(refused).toMatchObject({ httpStatus: 429, code: "insufficient_quota" });
    expect(refused.message).toContain("spending cap of 10.000000 yuan");
    expect(refused.message).toContain("1.000000 yuan is left under the cap");
    await reservations.reserve(caller("capped", 10n * YUAN), 1n * YUAN);
    await reservations.reserve(caller("uncapped"), 50n * YUAN);
  });

  it("frees a released reservation for both the account and the capped key", async () => {
    const { reservations, caller, keys } = await setup(5n * YUAN, { keyId: "capped", micros: 0n });
    const first = caller("capped", 4n * YUAN);
    await reservations.reserve(first, 4n * YUAN);
    await gatewayErrorOf(reservations.reserve(caller("capped", 4n * YUAN), 1n * YUAN));
    await reservations.release(first);
    expect(await redis.hLen(keys.reservations)).toBe(0);
    expect(await redis.hLen(keys.keyReservations("capped"))).toBe(0);
    await reservations.reserve(caller("capped", 4n * YUAN), 4n * YUAN);
  });

  it("lets lapsed reservations of a capped key stop counting", async () => {
    const { reservations, caller } = await setup(100n * YUAN, { keyId: "capped", micros: 0n });
    await reservations.reserve(caller("capped", 2n * YUAN), 2n * YUAN, 50);
    await new Promise((done) => setTimeout(done, 100));
    await reservations.reserve(caller("capped", 2n * YUAN), 2n * YUAN);
  });
});
