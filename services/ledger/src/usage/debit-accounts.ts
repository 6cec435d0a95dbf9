import type { CommittedBalance } from "../accounts/committed-copies.js";
import type { Prisma } from "../generated/prisma/client.js";
import type { UsageRow } from "./usage-rows.js";

/**
 * Debits each account by the cost of its inserted rows and returns the balances it leaves,
 * for the reservation cache. Runs before the other per-account writes of the batch: the
 * account locks it takes queue replicas that bill the same accounts behind each other.
 */
export async function debitAccounts(
  transaction: Prisma.TransactionClient,
  inserted: readonly UsageRow[],
): Promise<Map<string, CommittedBalance>> {
  const debits = new Map<string, bigint>();
  for (const row of inserted) debits.set(row.accountId, (debits.get(row.accountId) ?? 0n) + row.costMicros);
  if (debits.size === 0) return new Map();
  // Sorted, and locked in that order first, so two ledger replicas debiting overlapping
  // accounts queue behind each other instead of deadlocking.
  const accountIds = [...debits.keys()].sort();
  const amounts = accountIds.map((accountId) => debits.get(accountId)!.toString());
  await transaction.$executeRaw`
    SELECT 1 FROM ledger.accounts WHERE id = ANY(${accountIds}::uuid[]) ORDER BY id FOR UPDATE`;
  const rows = await transaction.$queryRaw<{ id: string; balance_micros: bigint; balance_version: bigint }[]>`
    UPDATE ledger.accounts AS account
    SET balance_micros = account.balance_micros - debit.amount, balance_version = account.balance_version + 1
    FROM unnest(${accountIds}::uuid[], ${amounts}::bigint[]) AS debit(id, amount)
    WHERE account.id = debit.id
    RETURNING account.id, account.balance_micros, account.balance_version`;
  return new Map(
    rows.map((row) => [row.id, { micros: BigInt(row.balance_micros), version: BigInt(row.balance_version) }]),
  );
}
