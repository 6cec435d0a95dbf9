import { formatYuan } from "@gateway/billing";
import { usageJson } from "../admin/serialize.js";
import type { DailyUsage, RequestLog, UsageRecord } from "../generated/prisma/client.js";
import type { UsageCounts } from "./read-statistics.js";

// The account API's JSON, in the admin API's conventions: money (`*_micros`) is a string of
// an integer of micro-yuan, times are ISO 8601.

export const balanceJson = (account: { id: string; balanceMicros: bigint }) => ({
  object: "balance",
  account_id: account.id,
  balance_micros: account.balanceMicros.toString(),
  balance_yuan: formatYuan(account.balanceMicros),
});

// Token and request counts stay far below 2^53, so they are plain JSON numbers.
const countsJson = (counts: UsageCounts) => ({
  requests: Number(counts.requests),
  prompt_tokens: Number(counts.promptTokens),
  completion_tokens: Number(counts.completionTokens),
  total_tokens: Number(counts.promptTokens + counts.completionTokens),
  cached_tokens: Number(counts.cachedTokens),
  cache_creation_tokens: Number(counts.cacheCreationTokens),
  reasoning_tokens: Number(counts.reasoningTokens),
  cost_micros: counts.costMicros.toString(),
});

export const statisticsJson = ({ days, totals }: { days: DailyUsage[]; totals: UsageCounts }) => ({
  object: "statistics",
  data: days.map((day) => ({ day: day.day.toISOString().slice(0, 10), model: day.model, ...countsJson(day) })),
  totals: countsJson(totals),
});

/** A stored body as the client sent or received it: JSON when it parses, else the raw text. */
function bodyJson(body: string | null): unknown {
  if (body === null) return null;
  try {
    return JSON.parse(body);
  } catch {
    return body;
  }
}

export const requestLogJson = ({ log, record }: { log: RequestLog; record: UsageRecord }) => ({
  ...usageJson(record),
  capture: log.capture,
  error_message: log.errorMessage,
  request_body: bodyJson(log.requestBody),
  response_body: bodyJson(log.responseBody),
  truncated: log.truncated,
});
