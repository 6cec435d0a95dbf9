import { randomUUID } from "node:crypto";
import { createLogger } from "@gateway/platform";
import type { Caller } from "@gateway/proto/common/v1/common";
import { gatewayErrorOf } from "@gateway/stack";
import { describe, expect, it } from "vitest";
import { billingTestServers } from "../test/billing-test-servers.js";
import { billingKeys } from "./billing-keys.js";
import { Reservations } from "./reservations.js";

const servers = billingTestServers();
const logger = createLogger("test", "silent");
const YUAN = 1_000_000n;

// A fresh namespace and account per test, with its balance (and a capped key's spent total) loaded.
async function setup(balance: bigint, spent?: { keyId: string; micros: bigint }) {
  const { redis, ledger } = servers;
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

  it("serves and refuses exactly for balances of 10^14 micro-yuan and more", async () => {
    const balance = 123_456_789_012_345_678n / 1000n;
    const { reservations, caller } = await setup(balance);
    await reservations.reserve(caller("k"), 2n * YUAN);
    const refused = await gatewayErrorOf(reservations.reserve(caller("k"), balance));
    expect(refused).toMatchObject({ httpStatus: 429, code: "insufficient_quota" });
    expect(refused.message).toContain(
      `${(balance - 2n * YUAN) / YUAN}.${String((balance - 2n * YUAN) % YUAN).padStart(6, "0")} yuan is available`,
    );
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
    expect(await servers.redis.hLen(keys.reservations)).toBe(0);
    expect(await servers.redis.hLen(keys.keyReservations("capped"))).toBe(0);
    await reservations.reserve(caller("capped", 4n * YUAN), 4n * YUAN);
  });

  it("lets lapsed reservations of a capped key stop counting", async () => {
    const { reservations, caller } = await setup(100n * YUAN, { keyId: "capped", micros: 0n });
    await reservations.reserve(caller("capped", 2n * YUAN), 2n * YUAN, 50);
    await new Promise((done) => setTimeout(done, 100));
    await reservations.reserve(caller("capped", 2n * YUAN), 2n * YUAN);
  });

  it("replaces a request's own reservation when it is reserved again, on the account and the capped key", async () => {
    const { reservations, caller, keys } = await setup(10n * YUAN, { keyId: "capped", micros: 0n });
    // Edge sends a call on to another router when the first died before calling a vendor: same request id.
    const request = caller("capped", 8n * YUAN);
    await reservations.reserve(request, 7n * YUAN);
    await reservations.reserve(request, 7n * YUAN);
    expect(await servers.redis.hGetAll(keys.reservations)).toEqual({ [request.requestId]: String(7n * YUAN) });
    const refused = await gatewayErrorOf(reservations.reserve(caller("k"), 4n * YUAN));
    expect(refused.message).toContain("3.000000 yuan is available");
    await reservations.release(request);
    expect(await servers.redis.hLen(keys.keyReservations("capped"))).toBe(0);
  });
});
