import { randomUUID } from "node:crypto";
import { createLogger } from "@gateway/platform";
import type { Caller } from "@gateway/proto/common/v1/common";
import { gatewayErrorOf } from "@gateway/stack";
import { describe, expect, it } from "vitest";
import { billingTestServers } from "../test/billing-test-servers.js";
import { Admission } from "./admission.js";
import { billingKeys, rateLimitKeys } from "./billing-keys.js";
import { RateLimiter } from "./rate-limits.js";
import { Reservations } from "./reservations.js";

const servers = billingTestServers();
const logger = createLogger("test", "silent");
const YUAN = 1_000_000n;

// A fresh namespace and account per test, its balance loaded, away from a window's edge.
async function setup(balance: bigint) {
  const { redis, ledger } = servers;
  const left = 60_000 - (Date.now() % 60_000);
  if (left < 10_000) await new Promise((done) => setTimeout(done, left + 100));
  const namespace = `adm-${randomUUID()}`;
  const accountId = randomUUID();
  await redis.set(billingKeys(namespace, accountId).balance, balance.toString());
  const rateLimits = new RateLimiter(redis, namespace, 60_000, logger);
  const admission = new Admission(redis, rateLimits, new Reservations(redis, ledger, namespace, 60_000, logger));
  const caller = (): Caller => ({
    requestId: randomUUID(),
    accountId,
    keyId: "key-1",
    modelGroup: "default",
    multiplierBasisPoints: 10_000,
  });
  const held = async () => ({
    reservations: await redis.hLen(billingKeys(namespace, accountId).reservations),
    slots: await redis.zCard(rateLimitKeys(namespace, accountId, "key-1").keySlots),
  });
  return { admission, rateLimits, caller, held };
}

describe("Admission", () => {
  it("counts the limits, takes the slot and reserves the cost in one call, answering the headers", async () => {
    const { admission, caller, held } = await setup(10n * YUAN);
    const limits = { requests_per_minute: 3, tokens_per_minute: 1_000, concurrent_requests: 5 };
    const headers = await admission.admit(caller(), limits, 100, 2n * YUAN);
    expect(headers).toMatchObject({ "x-ratelimit-remaining-requests": "2", "x-ratelimit-remaining-tokens": "900" });
    expect(await held()).toEqual({ reservations: 1, slots: 1 });
  });

  it("reserves nothing for a request a limit refuses", async () => {
    const { admission, caller, held } = await setup(10n * YUAN);
    const limits = { requests_per_minute: 1 };
    await admission.admit(caller(), limits, 0, YUAN);
    const error = await gatewayErrorOf(admission.admit(caller(), limits, 0, YUAN));
    expect(error).toMatchObject({ httpStatus: 429, code: "rate_limit_exceeded" });
    expect(await held()).toMatchObject({ reservations: 1 });
  });

  it("counts a request the balance refuses but leaves it no concurrency slot", async () => {
    const { admission, caller, held } = await setup(3n * YUAN);
    const limits = { requests_per_minute: 2, concurrent_requests: 5 };
    const error = await gatewayErrorOf(admission.admit(caller(), limits, 0, 5n * YUAN));
    expect(error).toMatchObject({ httpStatus: 429, code: "insufficient_quota" });
    expect(await held()).toEqual({ reservations: 0, slots: 0 });
    const headers = await admission.admit(caller(), limits, 0, YUAN);
    expect(headers).toMatchObject({ "x-ratelimit-remaining-requests": "0" });
  });

  it("frees the slot it took when the request ends", async () => {
    const { admission, rateLimits, caller, held } = await setup(10n * YUAN);
    const first = caller();
    await admission.admit(first, { concurrent_requests: 1 }, 0, YUAN);
    await gatewayErrorOf(admission.admit(caller(), { concurrent_requests: 1 }, 0, YUAN));
    await rateLimits.release(first);
    expect(await held()).toMatchObject({ slots: 0 });
  });

  it("still runs after Redis forgot its scripts", async () => {
    const { admission, caller } = await setup(10n * YUAN);
    await servers.redis.scriptFlush();
    await admission.admit(caller(), { requests_per_minute: 5 }, 0, YUAN);
    await admission.admit(caller(), {}, 0, YUAN);
  });
});
