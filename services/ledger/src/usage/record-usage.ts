import { type UsageEvent, usageOutcomeToJSON } from "@gateway/proto/events/v1/events";
import { priceUsage } from "@gateway/shared";
import type { Database } from "../database.js";
import type { Prisma } from "../generated/prisma/client.js";

const FULL_PRICE_BASIS_POINTS = 10_000;
const INT32_MAX = 2_147_483_647;

export interface UsageEntry {
  event: UsageEvent;
  /** The trace this event's request belongs to, stored so a usage row leads to its trace. */
  traceId: string | undefined;
}

export interface RecordedUsage {
  inserted: number;
  debitedMicros: bigint;
  // The balance each debited account was left with.
  balances: Map<string, bigint>;
}

/** "USAGE_OUTCOME_CLIENT_CANCELLED" → "client_cancelled". */
const outcomeName = (event: UsageEvent) =>
  usageOutcomeToJSON(event.outcome)
    .replace(/^USAGE_OUTCOME_/, "")
    .toLowerCase();

/**
 * Records a batch of usage events in ONE transaction: inserts the rows whose request_id is
 * new (ON CONFLICT DO NOTHING) and debits each account by the cost of exactly the rows
 * that were inserted, so a redelivered or republished event changes nothing. Either the
 * whole batch commits or none of it does, which is what lets the caller ack after commit.
 */
export function recordUsage(database: Database, entries: readonly UsageEntry[]): Promise<RecordedUsage> {
  return database.$transaction(async (transaction) => {
    const multipliers = await groupMultipliers(transaction, entries);
    const now = new Date();
    const inserted = await transaction.usageRecord.createManyAndReturn({
      skipDuplicates: true,
      select: { accountId: true, keyId: true, costMicros: true, startedAt: true },
      data: entries.map(({ event, traceId }) => ({
        requestId: event.requestId,
        accountId: event.accountId,
        keyId: event.keyId,
        model: event.model,
        vendor: event.vendor,
        channel: event.channel,
        endpoint: event.endpoint,
        promptTokens: event.promptTokens,
        completionTokens: event.completionTokens,
        totalTokens: event.totalTokens,
        billedUnits: event.billedUnits,
        unit: event.unit || null,
        estimated: event.estimated,
        outcome: outcomeName(event),
        errorCode: event.errorCode || null,
        costMicros: priceUsage({
          ...event,
          multiplierBasisPoints: multipliers.get(event.keyId) ?? FULL_PRICE_BASIS_POINTS,
        }),
        latencyMs: Math.min(Math.max(0, Math.trunc(event.latencyMs)), INT32_MAX),
        stream: event.stream,
        startedAt: event.startedAtMs > 0 ? new Date(event.startedAtMs) : now,
        traceId: traceId ?? null,
      })),
    });
    const debits = new Map<string, bigint>();
    const lastUse = new Map<string, Date>();
    for (const row of inserted) {
      debits.set(row.accountId, (debits.get(row.accountId) ?? 0n) + row.costMicros);
      const previous = lastUse.get(row.keyId);
      if (!previous || row.startedAt > previous) lastUse.set(row.keyId, row.startedAt);
    }
    const balances = await debitAccounts(transaction, debits);
    await markKeysUsed(transaction, lastUse);
    return {
      inserted: inserted.length,
      debitedMicros: [...debits.values()].reduce((sum, cost) => sum + cost, 0n),
      balances,
    };
  });
}

/** The model group multiplier of each key in the batch; a key the ledger does not know pays list price. */
async function groupMultipliers(transaction: Prisma.TransactionClient, entries: readonly UsageEntry[]) {
  const keyIds = [...new Set(entries.map(({ event }) => event.keyId))];
  const keys = await transaction.apiKey.findMany({
    where: { id: { in: keyIds } },
    select: { id: true, group: { select: { multiplierBasisPoints: true } } },
  });
  return new Map(keys.map((key) => [key.id, key.group.multiplierBasisPoints]));
}

/** Debits each account and returns the balances it leaves, for the reservation cache. */
async function debitAccounts(
  transaction: Prisma.TransactionClient,
  debits: Map<string, bigint>,
): Promise<Map<string, bigint>> {
  if (debits.size === 0) return new Map();
  // Sorted, and locked in that order first, so two ledger replicas debiting overlapping
  // accounts queue behind each other instead of deadlocking.
  const accountIds = [...debits.keys()].sort();
  const amounts = accountIds.map((accountId) => debits.get(accountId)!.toString());
  await transaction.$executeRaw`
    SELECT 1 FROM ledger.accounts WHERE id = ANY(${accountIds}::uuid[]) ORDER BY id FOR UPDATE`;
  const rows = await transaction.$queryRaw<{ id: string; balance_micros: bigint }[]>`
    UPDATE ledger.accounts AS account
    SET balance_micros = account.balance_micros - debit.amount
    FROM unnest(${accountIds}::uuid[], ${amounts}::bigint[]) AS debit(id, amount)
    WHERE account.id = debit.id
    RETURNING account.id, account.balance_micros`;
  return new Map(rows.map((row) => [row.id, BigInt(row.balance_micros)]));
}

async function markKeysUsed(transaction: Prisma.TransactionClient, lastUse: Map<string, Date>): Promise<void> {
  if (lastUse.size === 0) return;
  const keyIds = [...lastUse.keys()].sort();
  const times = keyIds.map((keyId) => lastUse.get(keyId)!.toISOString());
  await transaction.$executeRaw`
    UPDATE ledger.api_keys AS key
    SET last_used_at = GREATEST(key.last_used_at, used.at)
    FROM unnest(${keyIds}::uuid[], ${times}::timestamptz[]) AS used(id, at)
    WHERE key.id = used.id`;
}
