import { randomBytes } from "node:crypto";
import { billingKeys } from "@gateway/billing";
import { callUnary, natsNames } from "@gateway/platform";
import { LogCapture } from "@gateway/proto/common/v1/common";
import { KeyRevoked } from "@gateway/proto/events/v1/events";
import { KeyStatus, LedgerServiceClient, type LoadBalanceRequest } from "@gateway/proto/ledger/v1/ledger";
import { queryRows, testClientOptions, testServers } from "@gateway/stack";
import { credentials } from "@grpc/grpc-js";
import { connect, type NatsConnection } from "nats";
import { createClient } from "redis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hashApiKey } from "../src/keys/api-key.js";
import { adminCall, type LedgerUnderTest, startLedger } from "./ledger-under-test.js";

describe("ResolveKey, LoadBalance and revocation", () => {
  let ledger: LedgerUnderTest;
  // Key resolution is edge's to call, balance loads the router's.
  let client: LedgerServiceClient;
  let asRouter: LedgerServiceClient;
  let nats: NatsConnection;
  let redis: ReturnType<typeof createClient>;

  const resolve = (keyHash: string, on: LedgerServiceClient = client) =>
    callUnary(on.resolveKey.bind(on), { keyHash }, 5_000);
  const loadBalance = (request: LoadBalanceRequest) => callUnary(asRouter.loadBalance.bind(asRouter), request, 5_000);

  beforeAll(async () => {
    ledger = await startLedger();
    client = new LedgerServiceClient(ledger.grpcAddress, credentials.createInsecure(), testClientOptions("edge"));
    asRouter = new LedgerServiceClient(ledger.grpcAddress, credentials.createInsecure(), testClientOptions("router"));
    nats = await connect({ servers: testServers.natsUrl });
    redis = createClient({ url: testServers.redisUrl });
    await redis.connect();
  });
  afterAll(async () => {
    client?.close();
    asRouter?.close();
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
      canReadLogs: false,
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

  it("carries the account's log capture, the key's spending cap and log access, and a capture change at once", async () => {
    const { body: account } = await adminCall(ledger, "POST", "/accounts", { name: "ivy", read_logs: true });
    const { body: capped } = await adminCall(ledger, "POST", `/accounts/${account.account_id}/keys`, {
      group: "default",
      spend_cap_yuan: "2.5",
    });
    const keyHashes = [hashApiKey(account.api_key), hashApiKey(capped.api_key)];
    const [uncapped, withCap] = await Promise.all(keyHashes.map((keyHash) => resolve(keyHash)));
    expect(withCap).toMatchObject({
      status: KeyStatus.KEY_STATUS_ACTIVE,
      keyId: capped.key_id,
      spendCapMicros: 2_500_000,
    });
    expect(uncapped!.spendCapMicros).toBeUndefined();
    expect(withCap!.logCapture).toBeUndefined();
    // Whether a key may read request logs travels with it too.
    expect(uncapped!.canReadLogs).toBe(true);
    expect(withCap!.canReadLogs).toBe(false);

    // Both answers are cached for a minute now; the change must not wait for that.
    const path = `/accounts/${account.account_id}/log-capture`;
    expect((await adminCall(ledger, "PUT", path, { log_capture: "metadata" })).body.log_capture).toBe("metadata");
    for (const keyHash of keyHashes) {
      expect(await resolve(keyHash)).toMatchObject({ logCapture: LogCapture.LOG_CAPTURE_METADATA });
    }
    await adminCall(ledger, "PUT", path, { log_capture: "default" });
    for (const keyHash of keyHashes) expect((await resolve(keyHash)).logCapture).toBeUndefined();
  });

  it("loads a key's spending next to the balance, never over a fresher copy", async () => {
    const { body: account } = await adminCall(ledger, "POST", "/accounts", { name: "judy", credit_yuan: "3" });
    const { body: other } = await adminCall(ledger, "POST", "/accounts", { name: "ken" });
    await queryRows(ledger.database.url, "UPDATE ledger.api_keys SET spent_micros = 1234 WHERE id = $1", [
      account.key_id,
    ]);
    const accountId = account.account_id;
    const spent = billingKeys(ledger.namespace, accountId).keySpent(account.key_id);

    const balanceOnly = await loadBalance({ accountId });
    expect(balanceOnly.balanceMicros).toBe(3_000_000);
    expect(balanceOnly.keySpentMicros).toBeUndefined();
    expect(await redis.exists(spent)).toBe(0);

    expect(await loadBalance({ accountId, keyId: account.key_id })).toEqual({
      balanceMicros: 3_000_000,
      keySpentMicros: 1234,
    });
    expect(await redis.get(spent)).toBe("1234");
    // What ledger wrote after a later commit is newer than Postgres as read here: it stays.
    await redis.set(spent, "5000");
    expect((await loadBalance({ accountId, keyId: account.key_id })).keySpentMicros).toBe(5000);

    for (const keyId of [other.key_id, "not-a-key"]) {
      await expect(loadBalance({ accountId, keyId })).rejects.toMatchObject({
        details: expect.stringContaining("No API key"),
      });
    }
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
    const other = new LedgerServiceClient(
      `127.0.0.1:${withoutRedis.ports.grpc}`,
      credentials.createInsecure(),
      testClientOptions("edge"),
    );
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
