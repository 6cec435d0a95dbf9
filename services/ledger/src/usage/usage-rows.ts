import { priceUsage } from "@gateway/billing";
import { type RequestLog, type UsageEvent, usageOutcomeToJSON } from "@gateway/proto/events/v1/events";

const FULL_PRICE_BASIS_POINTS = 10_000;
const INT32_MAX = 2_147_483_647;

export interface UsageEntry {
  event: UsageEvent;
  /** The trace this event's request belongs to, stored so a usage row leads to its trace. */
  traceId: string | undefined;
}

/** One usage record as it is written, plus the request log its event carried. */
export interface UsageRow {
  requestId: string;
  accountId: string;
  keyId: string;
  model: string;
  vendor: string;
  channel: string;
  endpoint: string;
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
  cachedTokens: number;
  cacheCreationTokens: number;
  reasoningTokens: number;
  billedUnits: number;
  unit: string | null;
  estimated: boolean;
  outcome: string;
  errorCode: string | null;
  costMicros: bigint;
  latencyMs: number;
  stream: boolean;
  startedAt: Date;
  traceId: string | null;
  log: RequestLog | undefined;
}

/** "USAGE_OUTCOME_CLIENT_CANCELLED" → "client_cancelled". */
const outcomeName = (event: UsageEvent) =>
  usageOutcomeToJSON(event.outcome)
    .replace(/^USAGE_OUTCOME_/, "")
    .toLowerCase();

/**
 * The priced rows of a batch, one per request id: a request repeated within the batch keeps
 * its first event, so what the insert reports back maps to exactly one row each.
 * `multipliers` is each key's model group multiplier; an unknown key pays list price.
 */
export function usageRows(entries: readonly UsageEntry[], multipliers: ReadonlyMap<string, number>): UsageRow[] {
  const now = new Date();
  const rows = new Map<string, UsageRow>();
  for (const { event, traceId } of entries) {
    if (rows.has(event.requestId)) continue;
    rows.set(event.requestId, {
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
      // Vendor counts, never negative (the table checks it).
      cachedTokens: Math.max(0, event.cachedTokens),
      cacheCreationTokens: Math.max(0, event.cacheCreationTokens),
      reasoningTokens: Math.max(0, event.reasoningTokens),
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
      log: event.log,
    });
  }
  return [...rows.values()];
}
