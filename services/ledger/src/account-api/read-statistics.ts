import type { Database } from "../database.js";

export interface StatisticsFilter {
  /** UTC days, both inclusive. */
  from?: Date | undefined;
  to?: Date | undefined;
  model?: string | undefined;
}

/** One day and model's counts (ledger.daily_usage), or their sum: what both wires' statistics carry. */
export interface UsageCounts {
  requests: bigint;
  promptTokens: bigint;
  completionTokens: bigint;
  cachedTokens: bigint;
  cacheCreationTokens: bigint;
  reasoningTokens: bigint;
  costMicros: bigint;
}

/**
 * An account's totals per UTC day and model with their sum, read from the running totals
 * the usage consumer keeps (ledger.daily_usage): never a scan of the usage records.
 */
export async function readStatistics(database: Database, accountId: string, filter: StatisticsFilter) {
  const days = await database.dailyUsage.findMany({
    where: { accountId, model: filter.model, day: { gte: filter.from, lte: filter.to } },
    orderBy: [{ day: "asc" }, { model: "asc" }],
  });
  const totals: UsageCounts = {
    requests: 0n,
    promptTokens: 0n,
    completionTokens: 0n,
    cachedTokens: 0n,
    cacheCreationTokens: 0n,
    reasoningTokens: 0n,
    costMicros: 0n,
  };
  for (const day of days) {
    totals.requests += day.requests;
    totals.promptTokens += day.promptTokens;
    totals.completionTokens += day.completionTokens;
    totals.cachedTokens += day.cachedTokens;
    totals.cacheCreationTokens += day.cacheCreationTokens;
    totals.reasoningTokens += day.reasoningTokens;
    totals.costMicros += day.costMicros;
  }
  return { days, totals };
}
