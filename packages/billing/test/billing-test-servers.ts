import { insecureChannel, type Redis } from "@gateway/platform";
import { LedgerServiceClient } from "@gateway/proto/ledger/v1/ledger";
import { connectTestRedis } from "@gateway/stack";
import { afterAll, beforeAll } from "vitest";

/**
 * Redis for one test file, and a ledger client that points nowhere: each test puts the
 * balances (and capped keys' spent totals) in Redis itself, so a call to ledger fails the test.
 */
export function billingTestServers(): { readonly redis: Redis; readonly ledger: LedgerServiceClient } {
  const servers = {
    redis: undefined as unknown as Redis,
    ledger: new LedgerServiceClient("127.0.0.1:9", insecureChannel()),
  };
  beforeAll(async () => {
    servers.redis = await connectTestRedis();
  });
  afterAll(async () => {
    servers.ledger.close();
    await servers.redis.quit();
  });
  return servers;
}
