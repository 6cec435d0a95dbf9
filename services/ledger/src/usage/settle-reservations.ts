import type { Redis } from "@gateway/shared";
import { billingKeys, type Logger } from "@gateway/shared";

/**
 * After a batch commits: frees the reservations its requests held and writes the balances
 * it left where router checks new reservations. Balances are only overwritten, never
 * created (router loads a missing one from Postgres), so a stale copy cannot appear.
 * Failures are logged: unsettled reservations still lapse at their expiry.
 */
export async function settleReservations(
  redis: Redis,
  namespace: string,
  settled: ReadonlyArray<{ accountId: string; requestId: string }>,
  balances: ReadonlyMap<string, bigint>,
  logger: Logger,
): Promise<void> {
  if (settled.length === 0 && balances.size === 0) return;
  const pipeline = redis.multi();
  for (const { accountId, requestId } of settled) {
    const keys = billingKeys(namespace, accountId);
    pipeline.hDel(keys.reservations, requestId);
    pipeline.zRem(keys.expiries, requestId);
  }
  for (const [accountId, balance] of balances) {
    pipeline.set(billingKeys(namespace, accountId).balance, balance.toString(), { XX: true });
  }
  try {
    await pipeline.execAsPipeline();
  } catch (error) {
    logger.warn({ err: error, requests: settled.length }, "could not settle reservations in redis");
  }
}
