import type { Prisma } from "../generated/prisma/client.js";
import type { UsageRow } from "./usage-rows.js";

/**
 * Inserts the rows whose request_id is new and returns exactly those. One statement with
 * one array per column: its cost barely grows with the batch, where a row-by-row insert
 * (or Prisma's createMany, which compiles every row) would.
 */
export async function insertUsageRecords(
  transaction: Prisma.TransactionClient,
  rows: readonly UsageRow[],
): Promise<UsageRow[]> {
  if (rows.length === 0) return [];
  const inserted = await transaction.$queryRaw<{ request_id: string }[]>`
    INSERT INTO ledger.usage_records (
      request_id, account_id, key_id, model, vendor, channel, endpoint,
      prompt_tokens, completion_tokens, total_tokens, cached_tokens, cache_creation_tokens, reasoning_tokens, billed_units, unit, estimated, outcome,
      error_code, cost_micros, latency_ms, stream, started_at, trace_id)
    SELECT * FROM unnest(
      ${rows.map((row) => row.requestId)}::text[],
      ${rows.map((row) => row.accountId)}::uuid[],
      ${rows.map((row) => row.keyId)}::uuid[],
      ${rows.map((row) => row.model)}::text[],
      ${rows.map((row) => row.vendor)}::text[],
      ${rows.map((row) => row.channel)}::text[],
      ${rows.map((row) => row.endpoint)}::text[],
      ${rows.map((row) => row.promptTokens)}::integer[],
      ${rows.map((row) => row.completionTokens)}::integer[],
      ${rows.map((row) => row.totalTokens)}::integer[],
      ${rows.map((row) => row.cachedTokens)}::integer[],
      ${rows.map((row) => row.cacheCreationTokens)}::integer[],
      ${rows.map((row) => row.reasoningTokens)}::integer[],
      ${rows.map((row) => row.billedUnits)}::integer[],
      ${rows.map((row) => row.unit)}::text[],
      ${rows.map((row) => row.estimated)}::boolean[],
      ${rows.map((row) => row.outcome)}::text[],
      ${rows.map((row) => row.errorCode)}::text[],
      ${rows.map((row) => row.costMicros.toString())}::bigint[],
      ${rows.map((row) => row.latencyMs)}::integer[],
      ${rows.map((row) => row.stream)}::boolean[],
      ${rows.map((row) => row.startedAt.toISOString())}::timestamptz[],
      ${rows.map((row) => row.traceId)}::text[])
    ON CONFLICT (request_id) DO NOTHING
    RETURNING request_id`;
  const insertedIds = new Set(inserted.map((row) => row.request_id));
  return rows.filter((row) => insertedIds.has(row.requestId));
}
