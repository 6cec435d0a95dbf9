import { randomBytes } from "node:crypto";
import { KeyRevoked } from "@gateway/proto/events/v1/events";
import { KeyStatus, LedgerServiceClient } from "@gateway/proto/ledger/v1/ledger";
import { callUnary, natsNames } from "@gateway/shared";
import { testServers } from "@gateway/stack";
import { credentials } from "@grpc/grpc-js";
import { connect, type NatsConnection } from "nats";
import { createClient } from "redis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hashApiKey } from "../src/keys/api-key.js";
import { adminCall, type LedgerUnderTest, startLedger } from "./ledger-under-test.js";

describe("ResolveKey and revocation", () => {
  let ledger: LedgerUnderTest;
  let client: LedgerServiceClient;
  let nats: NatsConnection;
  let redis: ReturnType<typeof createClient>;

  const resolve = (keyHash: string, on: LedgerServiceClient = client) =>
    callUnary(on.resolveKey.bind(on), { keyHash }, 5_000);

  beforeAll(async () => {
    ledger = await startLedger();
    client = new LedgerServiceClient(ledger.grpcAddress, credentials.createInsecure());
    nats = await connect({ servers: testServers.natsUrl });
    redis = createClient({ url: testServers.redisUrl });
    await redis.connect();
  });
  afterAll(async () => {
    client?.close();
    await nats?.close();
    redis?.destroy();
    expect(await ledger?.cleanUp()).toEqual([0, 0]);
  });

  it("answers ACTIVE, UNKNOWN, then REVOKED at once after a revoke, and announces it on NATS", async () => {
    const { body: account } = await adminCall(ledger, "POST", "/accounts", { name: "erin", group: "premium" });
    const keyHash = hashApiKey(account.api_key);

    expect(await resolve(keyHash)).toEqual({
      status: KeyStatus.KEY_STATUS_ACTIVE,
      keyId: account.key_id,
      accountId: account.account_id,
      modelGroup: "premium",
      multiplierBasisPoints: 15_000,
    });
    // The second answer comes from Redis, which now holds it.
    expect(await redis.exists(`${ledger.namespace}:key:${keyHash}`)).toBe(1);
    expect((await resolve(keyHash)).status).toBe(KeyStatus.KEY_STATUS_ACTIVE);

    const randomHash = randomBytes(32).toString("hex");
    expect((await resolve(randomHash)).status).toBe(KeyStatus.KEY_STATUS_UNKNOWN);
    expect(await redis.ttl(`${ledger.namespace}:key:${randomHash}`)).toBeLessThanOrEqual(10);

    const announced = nats.subscribe(natsNames(ledger.namespace).keyRevokedSubject, { max: 1, timeout: 5_000 });
    const revoke = await adminCall(ledger, "POST", `/keys/${account.key_id}/revoke`);
    expect(revoke.status).toBe(200);
    expect(revoke.body).toMatchObject({ key_id: account.key_id, status: "revoked", revoked_at: expect.any(String) });
    for await (const message of announced) expect(KeyRevoked.decode(message.data)).toEqual({ keyHash });

    // Not the cached ACTIVE answer: revocation dropped the cache entry.
    expect(await resolve(keyHash)).toMatchObject({ status: KeyStatus.KEY_STATUS_REVOKED, keyId: account.key_id });
  });

  it("answers EXPIRED for a key past its expiry", async () => {
    const { body: account } = await adminCall(ledger, "POST", "/accounts", { name: "frank" });
    const { body: key } = await adminCall(ledger, "POST", `/accounts/${account.account_id}/keys`, {
      group: "default",
      expires_at: new Date(Date.now() - 1_000).toISOString(),
    });
    expect((await resolve(hashApiKey(key.api_key))).status).toBe(KeyStatus.KEY_STATUS_EXPIRED);
  });

  it("rejects a malformed hash as an invalid argument", async () => {
    await expect(resolve("sk-gw-not-a-hash")).rejects.toMatchObject({ details: expect.stringContaining("key_hash") });
  });

  it("still resolves keys from Postgres when Redis is down", async () => {
    const { body: account } = await adminCall(ledger, "POST", "/accounts", { name: "grace" });
    // Port 9 (discard) has no Redis: this ledger never gets a cache.
    const withoutRedis = await ledger.startAnother({ REDIS_URL: "redis://127.0.0.1:9" });
    const other = new LedgerServiceClient(`127.0.0.1:${withoutRedis.ports.grpc}`, credentials.createInsecure());
    try {
      expect(await resolve(hashApiKey(account.api_key), other)).toMatchObject({
        status: KeyStatus.KEY_STATUS_ACTIVE,
        accountId: account.account_id,
      });
      expect(withoutRedis.output.join("\n")).toContain("redis");
    } finally {
      other.close();
    }
  });
});
