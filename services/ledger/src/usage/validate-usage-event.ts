import type { UsageEvent } from "@gateway/proto/events/v1/events";

export const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
// 1 million yuan per million tokens: far above any real price, and low enough that no
// token count can push a cost past a BigInt column.
const MAX_PRICE_MICROS = 1_000_000_000_000;
// A day of audio or video, or a thousand images: far above one request, low enough to multiply safely.
const MAX_BILLED_UNITS = 100_000;

/**
 * Checks what the database would otherwise reject, so that one bad event cannot make a
 * whole batch fail again and again. Returns the problem, or undefined when the event is fine.
 */
export function validateUsageEvent(event: UsageEvent): string | undefined {
  if (!event.requestId) return "request_id is empty";
  if (!uuidPattern.test(event.accountId)) return `account_id is not a uuid: ${event.accountId}`;
  if (!uuidPattern.test(event.keyId)) return `key_id is not a uuid: ${event.keyId}`;
  const counts = [
    event.promptTokens,
    event.completionTokens,
    event.totalTokens,
    event.cachedTokens,
    event.cacheCreationTokens,
    event.reasoningTokens,
    event.imageInputTokens,
  ];
  if (counts.some((count) => count < 0)) return "token counts are negative";
  const prices = [
    event.inputPriceMicros,
    event.outputPriceMicros,
    event.unitPriceMicros,
    event.cacheReadPriceMicros,
    event.cacheWritePriceMicros,
    event.imageInputPriceMicros,
  ];
  for (const price of prices) {
    if (!Number.isSafeInteger(price) || price < 0 || price > MAX_PRICE_MICROS) return `price out of range: ${price}`;
  }
  if (!Number.isSafeInteger(event.billedUnits) || event.billedUnits < 0 || event.billedUnits > MAX_BILLED_UNITS) {
    return `billed units out of range: ${event.billedUnits}`;
  }
  return undefined;
}
