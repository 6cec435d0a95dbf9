import type { Prisma } from "../generated/prisma/client.js";
import type { UsageRow } from "./usage-rows.js";

interface DailyTotals {
  accountId: string;
  /** The UTC day the requests started, YYYY-MM-DD. */
  day: string;
  model: string;
  // Numbers: a batch's int32 token counts add up far below 2^53.
  requests: number;
  promptTokens: number;
  completionTokens: number;
  cachedTokens: number;
  cacheCreationTokens: number;
  reasoningTokens: number;
  costMicros: bigint;
}

/** Sums the rows per account, UTC day and model, in a stable order (the order rows get locked in). */
function dailyTotals(rows: readonly UsageRow[]): DailyTotals[] {
  const totals = new Map<string, DailyTotals>();
  for (const row of rows) {
    const day = row.startedAt.toISOString().slice(0, 10);
    // Unambiguous: the account id and the day have fixed forms and no spaces.
    const group = `${row.accountId} ${day} ${row.model}`;
    let total = totals.get(group);
    if (!total) {
      total = {
        accountId: row.accountId,
        day,
        model: row.model,
        requests: 0,
        promptTokens: 0,
        completionTokens: 0,
        cachedTokens: 0,
        cacheCreationTokens: 0,
        reasoningTokens: 0,
        costMicros: 0n,
      };
      totals.set(group, total);
    }
    total.requests += 1;
    total.promptTokens += row.promptTokens;
    total.completionTokens += row.completionTokens;
    total.cachedTokens += row.cachedTokens;
    total.cacheCreationTokens += row.cacheCreationTokens;
    total.reasoningTokens += row.reasoningTokens;
    total.costMicros += row.costMicros;
  }
  return [...totals.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, total]) => total);
}

/** Adds the inserted rows to the running per-day statistics, creating the days and models not seen yet. */
export async function addDailyUsage(
  transaction: Prisma.TransactionClient,
  inserted: readonly UsageRow[],
): Promise<void> {
  const totals = dailyTotals(inserted);
  if (totals.length === 0) return;
  await transaction.$executeRaw`
    INSERT INTO ledger.daily_usage AS daily (
      account_id, day, model, requests, prompt_tokens, completion_tokens,
      cached_tokens, cache_creation_tokens, reasoning_tokens, cost_micros)
    SELECT * FROM unnest(
      ${totals.map((total) => total.accountId)}::uuid[],
      ${totals.map((total) => total.day)}::date[],
      ${totals.map((total) => total.model)}::text[],
      ${totals.map((total) => total.requests)}::bigint[],
      ${totals.map((total) => total.promptTokens)}::bigint[],
      ${totals.map((total) => total.completionTokens)}::bigint[],
      ${totals.map((total) => total.cachedTokens)}::bigint[],
      ${totals.map((total) => total.cacheCreationTokens)}::bigint[],
      ${totals.map((total) => total.reasoningTokens)}::bigint[],
      ${totals.map((total) => total.costMicros.toString())}::bigint[])
    ON CONFLICT (account_id, day, model) DO UPDATE SET
      requests = daily.requests + EXCLUDED.requests,
      prompt_tokens = daily.prompt_tokens + EXCLUDED.prompt_tokens,
      completion_tokens = daily.completion_tokens + EXCLUDED.completion_tokens,
      cached_tokens = daily.cached_tokens + EXCLUDED.cached_tokens,
      cache_creation_tokens = daily.cache_creation_tokens + EXCLUDED.cache_creation_tokens,
      reasoning_tokens = daily.reasoning_tokens + EXCLUDED.reasoning_tokens,
      cost_micros = daily.cost_micros + EXCLUDED.cost_micros`;
}
