import type { CatalogueModel, Channel } from "@gateway/catalogue";
import { pricesAt } from "@gateway/catalogue";
import type { GatewayError } from "@gateway/platform";
import type { Caller } from "@gateway/proto/common/v1/common";
import { type UsageEvent, UsageOutcome } from "@gateway/proto/events/v1/events";
import type { Usage } from "@gateway/proto/router/v1/chat";

export interface RequestFacts {
  caller: Caller;
  model: CatalogueModel;
  channel: Channel;
  endpoint: string;
  stream: boolean;
  startedAt: number;
  // The caller's x-ratelimit-* headers, set when the request is admitted under its group's limits.
  rateLimitHeaders?: Record<string, string>;
  // The model at its standard prices and the surcharged options the request asked for, when
  // `model` carries surcharged prices: the usage event is priced as the vendor says it served.
  surcharged?: { standard: CatalogueModel; options: string[] };
  // The admission lease the worst case came from, when router admitted the request from one.
  lease?: { id: string; micros: bigint };
}

export interface Outcome {
  usage: Usage | undefined;
  estimated: boolean;
  outcome: UsageOutcome;
  error?: GatewayError;
  // Work billed per unit (images, audio seconds, video seconds) at the catalogue's unit price.
  units?: { count: number; unit: string; priceMicros: number };
}

/** The usage event of one finished request, priced with the catalogue as it is now. */
export function usageEvent(facts: RequestFacts, result: Outcome): UsageEvent {
  const promptTokens = result.usage?.promptTokens ?? 0;
  const completionTokens = result.usage?.completionTokens ?? 0;
  // The band of a tiered price is the one of this request's prompt as the vendor counted it.
  const price = pricesAt(facts.model.price, promptTokens);
  return {
    requestId: facts.caller.requestId,
    accountId: facts.caller.accountId,
    keyId: facts.caller.keyId,
    model: facts.model.id,
    vendor: facts.model.vendor,
    channel: facts.channel.name,
    endpoint: facts.endpoint,
    promptTokens,
    completionTokens,
    totalTokens: result.usage?.totalTokens ?? promptTokens + completionTokens,
    estimated: result.estimated,
    outcome: result.outcome,
    errorCode: result.error?.code ?? "",
    startedAtMs: facts.startedAt,
    latencyMs: Date.now() - facts.startedAt,
    stream: facts.stream,
    inputPriceMicros: price.input,
    outputPriceMicros: price.output,
    billedUnits: result.units?.count ?? 0,
    unit: result.units?.unit ?? "",
    unitPriceMicros: result.units?.priceMicros ?? 0,
    cachedTokens: result.usage?.cachedTokens ?? 0,
    cacheCreationTokens: result.usage?.cacheCreationTokens ?? 0,
    reasoningTokens: result.usage?.reasoningTokens ?? 0,
    // Absent rates bill cache traffic at the input price.
    cacheReadPriceMicros: price.cache_read ?? price.input,
    cacheWritePriceMicros: price.cache_write ?? price.input,
    imageInputTokens: result.usage?.imageTokens ?? 0,
    imageInputPriceMicros: facts.model.images?.image_input_price ?? 0,
    ...(facts.lease && { leaseId: facts.lease.id, leasedMicros: Number(facts.lease.micros) }),
  };
}

export { UsageOutcome };
