import { keyStatusToJSON } from "@gateway/proto/ledger/v1/ledger";
import type { Account, ApiKey, Credit, UsageRecord } from "../generated/prisma/client.js";
import { keyStatusAnswer } from "../keys/resolve-key.js";

// The admin API's JSON. Money (`*_micros`) is always a string of an integer number of
// micro-yuan, because 64-bit values do not fit a JSON number exactly; times are ISO 8601.

/** "KEY_STATUS_ACTIVE" → "active". */
const keyStatusName = (key: Omit<ApiKey, "keyHash">) =>
  keyStatusToJSON(keyStatusAnswer(key, new Date()).status)
    .replace(/^KEY_STATUS_/, "")
    .toLowerCase();

export const accountJson = (account: Account) => ({
  account_id: account.id,
  name: account.name,
  balance_micros: account.balanceMicros.toString(),
  created_at: account.createdAt.toISOString(),
  // null: the deployment's default.
  log_capture: account.logCapture,
});

export const keyJson = (key: Omit<ApiKey, "keyHash">) => ({
  key_id: key.id,
  account_id: key.accountId,
  name: key.name,
  key_prefix: key.keyPrefix,
  group: key.modelGroup,
  status: keyStatusName(key),
  created_at: key.createdAt.toISOString(),
  expires_at: key.expiresAt?.toISOString() ?? null,
  revoked_at: key.revokedAt?.toISOString() ?? null,
  last_used_at: key.lastUsedAt?.toISOString() ?? null,
  spend_cap_micros: key.spendCapMicros?.toString() ?? null,
  spent_micros: key.spentMicros.toString(),
  read_logs: key.canReadLogs,
});

export const creditJson = (credit: Credit) => ({
  credit_id: credit.id,
  account_id: credit.accountId,
  amount_micros: credit.amountMicros.toString(),
  idempotency_key: credit.idempotencyKey,
  created_at: credit.createdAt.toISOString(),
});

export const usageJson = (record: UsageRecord) => ({
  request_id: record.requestId,
  key_id: record.keyId,
  model: record.model,
  vendor: record.vendor,
  channel: record.channel,
  endpoint: record.endpoint,
  prompt_tokens: record.promptTokens,
  completion_tokens: record.completionTokens,
  total_tokens: record.totalTokens,
  cached_tokens: record.cachedTokens,
  cache_creation_tokens: record.cacheCreationTokens,
  reasoning_tokens: record.reasoningTokens,
  estimated: record.estimated,
  outcome: record.outcome,
  error_code: record.errorCode,
  cost_micros: record.costMicros.toString(),
  latency_ms: record.latencyMs,
  stream: record.stream,
  started_at: record.startedAt.toISOString(),
  created_at: record.createdAt.toISOString(),
  trace_id: record.traceId,
});
