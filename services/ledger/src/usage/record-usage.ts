import type { CommittedBalance } from "../accounts/committed-copies.js";
import type { Database } from "../database.js";
import type { Prisma } from "../generated/prisma/client.js";
import { addDailyUsage } from "./add-daily-usage.js";
import { chargeKeys } from "./charge-keys.js";
import { debitAccounts } from "./debit-accounts.js";
import { insertUsageRecords } from "./insert-usage-records.js";
import { storeRequestLogs } from "./store-request-logs.js";
import { type UsageEntry, type UsageRow, usageRows } from "./usage-rows.js";

export interface RecordedUsage {
  inserted: number;
  // The rows inserted (what the metrics count by model).
  rows: UsageRow[];
  debitedMicros: bigint;
  // The balance each debited account was left with.
  balances: Map<string, CommittedBalance>;
  // What each charged key has spent in all, for the router's spending-cap check.
  keySpent: Map<string, bigint>;
}

/**
 * Records a batch of usage events in ONE transaction: inserts the rows whose request_id is
 * new (ON CONFLICT DO NOTHING) and, for exactly the rows inserted, debits the accounts,
 * adds to the daily statistics and the keys' spending, and stores the request logs; so a
 * redelivered or republished event changes nothing. Either the whole batch commits or none
 * of it does, which is what lets the caller ack after commit.
 */
export function recordUsage(database: Database, entries: readonly UsageEntry[]): Promise<RecordedUsage> {
  return database.$transaction(async (transaction) => {
    const rows = usageRows(entries, await groupMultipliers(transaction, entries));
    const inserted = await insertUsageRecords(transaction, rows);
    const balances = await debitAccounts(transaction, inserted);
    await addDailyUsage(transaction, inserted);
    const keySpent = await chargeKeys(transaction, inserted);
    await storeRequestLogs(transaction, inserted);
    return {
      inserted: inserted.length,
      rows: inserted,
      debitedMicros: inserted.reduce((sum, row) => sum + row.costMicros, 0n),
      balances,
      keySpent,
    };
  });
}

/** The model group multiplier of each key in the batch. */
async function groupMultipliers(
  transaction: Prisma.TransactionClient,
  entries: readonly UsageEntry[],
): Promise<Map<string, number>> {
  const keyIds = [...new Set(entries.map(({ event }) => event.keyId))];
  const keys = await transaction.$queryRaw<{ id: string; multiplier_basis_points: number }[]>`
    SELECT key.id, model_group.multiplier_basis_points
    FROM ledger.api_keys AS key JOIN ledger.model_groups AS model_group ON model_group.name = key.model_group
    WHERE key.id = ANY(${keyIds}::uuid[])`;
  return new Map(keys.map((key) => [key.id, key.multiplier_basis_points]));
}
