import { billingKeys, type LeasedAdmission, type LeasedSettlement, queueGiveBackToLeases } from "@gateway/billing";
import type { Logger, Redis } from "@gateway/platform";
import { type CommittedBalance, writeBalanceCopy, writeKeySpentCopy } from "../accounts/committed-copies.js";

export interface SettledRequest {
  accountId: string;
  keyId: string;
  requestId: string;
  // Admitted from a router's admission lease: what goes back to it now that the charge is committed.
  lease?: LeasedAdmission;
}

/** What a commit left behind that router checks reservations against. */
export interface CommittedTotals {
  // account id → balance.
  balances: ReadonlyMap<string, CommittedBalance>;
  // key id → what the key has spent; each such key made one of the settled requests.
  keySpent?: ReadonlyMap<string, bigint>;
}

/**
 * After a batch commits: frees the reservations its requests held (on the account and on
 * the key, or in the admission lease they were admitted from) and writes the balances and key spending it left where router checks new
 * reservations. A copy from an older commit never replaces a newer one (balance versions;
 * spent totals only grow), whatever order replicas write in. Failures are logged:
 * unsettled reservations still lapse at their expiry.
 */
export async function settleReservations(
  redis: Redis,
  namespace: string,
  settled: readonly SettledRequest[],
  { balances, keySpent = new Map() }: CommittedTotals,
  logger: Logger,
): Promise<void> {
  if (settled.length === 0 && balances.size === 0) return;
  const pipeline = redis.multi();
  // One command per account and per key, not per request. A key's copies live under its
  // account's hash tag.
  for (const [accountId, requestsByKey] of groupRequests(settled)) {
    const keys = billingKeys(namespace, accountId);
    const requestIds = [...requestsByKey.values()].flat();
    pipeline.hDel(keys.reservations, requestIds);
    pipeline.zRem(keys.expiries, requestIds);
    for (const [keyId, keyRequestIds] of requestsByKey) {
      pipeline.hDel(keys.keyReservations(keyId), keyRequestIds);
      const spent = keySpent.get(keyId);
      if (spent !== undefined) writeKeySpentCopy(pipeline, namespace, accountId, keyId, spent);
    }
  }
  for (const [accountId, balance] of balances) writeBalanceCopy(pipeline, namespace, accountId, balance);
  // After the balances: between the two writes the account can only look poorer, never richer.
  for (const [accountId, leasedByKey] of leasedByKeys(settled)) {
    for (const [keyId, leased] of leasedByKey) queueGiveBackToLeases(pipeline, namespace, { accountId, keyId }, leased);
  }
  try {
    await pipeline.execAsPipeline();
  } catch (error) {
    logger.warn({ err: error, requests: settled.length }, "could not settle reservations in redis");
  }
}

/** account id → key id → the settled requests admitted from leases (a capped key's lease is in the key's reservations too). */
function leasedByKeys(settled: readonly SettledRequest[]): Map<string, Map<string, LeasedSettlement[]>> {
  const grouped = new Map<string, Map<string, LeasedSettlement[]>>();
  for (const { accountId, keyId, requestId, lease } of settled) {
    if (!lease) continue;
    const byKey = grouped.get(accountId) ?? new Map<string, LeasedSettlement[]>();
    grouped.set(accountId, byKey);
    const leased = byKey.get(keyId) ?? [];
    byKey.set(keyId, leased);
    leased.push({ leaseId: lease.id, requestId, micros: lease.micros });
  }
  return grouped;
}

/** account id → key id → the settled request ids. */
function groupRequests(settled: readonly SettledRequest[]): Map<string, Map<string, string[]>> {
  const grouped = new Map<string, Map<string, string[]>>();
  for (const { accountId, keyId, requestId } of settled) {
    const requestsByKey = grouped.get(accountId) ?? new Map<string, string[]>();
    grouped.set(accountId, requestsByKey);
    const requestIds = requestsByKey.get(keyId) ?? [];
    requestsByKey.set(keyId, requestIds);
    requestIds.push(requestId);
  }
  return grouped;
}
