import { billingKeys, Reservations } from "@gateway/billing";
import { createLogger, createRedis, insecureChannel } from "@gateway/platform";
import { LedgerServiceClient } from "@gateway/proto/ledger/v1/ledger";
import { type Percentiles, percentilesOf, roundPercentiles } from "./stats.js";

/**
 * The router's hot-path reservation (one Lua script in Redis) timed on its own, against an
 * account with a typical number of open reservations; each is released untimed afterwards,
 * as the ledger would.
 */
export async function measureReservationCost(redisUrl: string, namespace: string, calls: number): Promise<Percentiles> {
  const logger = createLogger("bench", "silent");
  const redis = createRedis(redisUrl, logger, "bench", 2_000);
  await new Promise((resolve) => setTimeout(resolve, 200));
  const accountId = "00000000-0000-4000-8000-0000000bench";
  const keys = billingKeys(namespace, accountId);
  // Never consulted: the balance is already in Redis.
  const ledger = new LedgerServiceClient("127.0.0.1:1", insecureChannel());
  const reservations = new Reservations(redis, ledger, namespace, 60_000, logger);
  try {
    await redis.set(keys.balance, String(1_000_000_000_000));
    const caller = (requestId: string) => ({
      requestId,
      accountId,
      keyId: "k",
      modelGroup: "default",
      multiplierBasisPoints: 10_000,
    });
    // Ten requests in flight for the account, as on a busy key.
    for (let open = 0; open < 10; open++) await reservations.reserve(caller(`open-${open}`), 500n);
    const timings: number[] = [];
    for (let call = 0; call < calls; call++) {
      const requestId = `bench-${call}`;
      const started = performance.now();
      await reservations.reserve(caller(requestId), 500n);
      timings.push(performance.now() - started);
      await redis.multi().hDel(keys.reservations, requestId).zRem(keys.expiries, requestId).exec();
    }
    return roundPercentiles(percentilesOf(timings));
  } finally {
    await redis.del([keys.balance, keys.reservations, keys.expiries]);
    ledger.close();
    await redis.quit();
  }
}
