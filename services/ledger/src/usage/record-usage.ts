import type { SqlPool } from "@gateway/platform";
import type { CommittedBalance } from "../accounts/committed-copies.js";
import { requestLogFields } from "./request-log-fields.js";
import { keyMultipliersSql, recordUsageBatchSql } from "./usage-batch-sql.js";
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

interface ResultRow {
  kind: "inserted" | "balance" | "spent";
  id: string;
  amount: string | null;
  version: string | null;
}

/**
 * Records a batch of usage events in ONE statement (usage-batch-sql.ts): inserts the rows
 * whose request_id is new and, for exactly those, debits the accounts, adds to the daily
 * statistics and the keys' spending, and stores the request logs; so a redelivered or
 * republished event changes nothing. Either the whole batch commits or none of it does,
 * which is what lets the caller ack after commit.
 */
export async function recordUsage(pool: SqlPool, entries: readonly UsageEntry[]): Promise<RecordedUsage> {
  const rows = usageRows(entries, await groupMultipliers(pool, entries));
  const { rows: results } = await pool.query<ResultRow>({
    name: "record-usage-batch",
    text: recordUsageBatchSql,
    values: [JSON.stringify(rows.map(batchRow))],
  });
  const insertedIds = new Set<string>();
  const balances = new Map<string, CommittedBalance>();
  const keySpent = new Map<string, bigint>();
  for (const { kind, id, amount, version } of results) {
    if (kind === "inserted") insertedIds.add(id);
    else if (kind === "balance") balances.set(id, { micros: BigInt(amount!), version: BigInt(version!) });
    else keySpent.set(id, BigInt(amount!));
  }
  const inserted = rows.filter((row) => insertedIds.has(row.requestId));
  return {
    inserted: inserted.length,
    rows: inserted,
    debitedMicros: inserted.reduce((sum, row) => sum + row.costMicros, 0n),
    balances,
    keySpent,
  };
}

/** One row of the statement's JSON input: the usage record and the request log it carries. */
function batchRow(row: UsageRow) {
  return {
    request_id: row.requestId,
    account_id: row.accountId,
    key_id: row.keyId,
    model: row.model,
    vendor: row.vendor,
    channel: row.channel,
    endpoint: row.endpoint,
    prompt_tokens: row.promptTokens,
    completion_tokens: row.completionTokens,
    total_tokens: row.totalTokens,
    cached_tokens: row.cachedTokens,
    cache_creation_tokens: row.cacheCreationTokens,
    reasoning_tokens: row.reasoningTokens,
    billed_units: row.billedUnits,
    unit: row.unit,
    estimated: row.estimated,
    outcome: row.outcome,
    error_code: row.errorCode,
    // A string: JSON numbers lose precision past 2^53.
    cost_micros: row.costMicros.toString(),
    latency_ms: row.latencyMs,
    stream: row.stream,
    started_at: row.startedAt.toISOString(),
    trace_id: row.traceId,
    ...requestLogFields(row.log),
  };
}

/** The model group multiplier of each key in the batch. */
async function groupMultipliers(pool: SqlPool, entries: readonly UsageEntry[]): Promise<Map<string, number>> {
  const keyIds = [...new Set(entries.map(({ event }) => event.keyId))];
  const { rows } = await pool.query<{ id: string; multiplier_basis_points: number }>({
    name: "key-multipliers",
    text: keyMultipliersSql,
    values: [keyIds],
  });
  return new Map(rows.map((key) => [key.id, key.multiplier_basis_points]));
}
