import type { CatalogueModel } from "@gateway/catalogue/catalogue";
import type { ChatRequest } from "@gateway/proto/router/v1/chat";
import { priceUsage } from "@gateway/shared";
import { estimatePromptTokens } from "../usage/token-estimate.js";

// When neither the client nor the catalogue bounds the answer.
const fallbackMaxTokens = 4_096;

/** The output tokens one choice may run to. */
export const maxOutputTokens = (request: ChatRequest, model: CatalogueModel) =>
  request.maxTokens ?? model.default_max_tokens ?? model.max_output_tokens ?? fallbackMaxTokens;

/** What a request counts against tokens per minute: its prompt plus every choice running to its token limit. */
export const worstCaseTokens = (request: ChatRequest, model: CatalogueModel) =>
  estimatePromptTokens(request) + maxOutputTokens(request, model) * (request.n ?? 1);

/** The most a request can cost: its prompt plus every choice running to its token limit. */
export function worstCaseCostMicros(
  request: ChatRequest,
  model: CatalogueModel,
  multiplierBasisPoints: number,
): bigint {
  const maxTokens = maxOutputTokens(request, model);
  return priceUsage({
    promptTokens: estimatePromptTokens(request),
    completionTokens: maxTokens * (request.n ?? 1),
    inputPriceMicros: model.price.input,
    outputPriceMicros: model.price.output,
    multiplierBasisPoints: multiplierBasisPoints || 10_000,
  });
}

/** The most unit-priced work can cost (images asked for, audio seconds estimated from the file). */
export function unitsCostMicros(count: number, unitPriceMicros: number, multiplierBasisPoints: number): bigint {
  return priceUsage({
    promptTokens: 0,
    completionTokens: 0,
    inputPriceMicros: 0,
    outputPriceMicros: 0,
    billedUnits: count,
    unitPriceMicros,
    multiplierBasisPoints: multiplierBasisPoints || 10_000,
  });
}
