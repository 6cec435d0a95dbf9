import type { Prisma } from "../generated/prisma/client.js";
import type { UsageRow } from "./usage-rows.js";

/**
 * Adds each key's share of the inserted rows to what it has spent and moves its last use
 * forward. Returns the new spent totals of the charged keys that have a spending cap: the
 * only ones router checks, so the only ones it keeps a copy of.
 */
export async function chargeKeys(
  transaction: Prisma.TransactionClient,
  inserted: readonly UsageRow[],
): Promise<Map<string, bigint>> {
  const charges = new Map<string, { costMicros: bigint; lastUsedAt: Date }>();
  for (const row of inserted) {
    const charge = charges.get(row.keyId);
    if (!charge) charges.set(row.keyId, { costMicros: row.costMicros, lastUsedAt: row.startedAt });
    else {
      charge.costMicros += row.costMicros;
      if (row.startedAt > charge.lastUsedAt) charge.lastUsedAt = row.startedAt;
    }
  }
  if (charges.size === 0) return new Map();
  const keyIds = [...charges.keys()].sort();
  const amounts = keyIds.map((keyId) => charges.get(keyId)!.costMicros.toString());
  const times = keyIds.map((keyId) => charges.get(keyId)!.lastUsedAt.toISOString());
  const rows = await transaction.$queryRaw<{ id: string; spent_micros: bigint; capped: boolean }[]>`
    UPDATE ledger.api_keys AS key
    SET spent_micros = key.spent_micros + charge.amount,
        last_used_at = GREATEST(key.last_used_at, charge.used_at)
    FROM unnest(${keyIds}::uuid[], ${amounts}::bigint[], ${times}::timestamptz[]) AS charge(id, amount, used_at)
    WHERE key.id = charge.id
    RETURNING key.id, key.spent_micros, key.spend_cap_micros IS NOT NULL AS capped`;
  return new Map(rows.filter((row) => row.capped).map((row) => [row.id, BigInt(row.spent_micros)]));
}
