import { priceUsage } from "@gateway/billing";
import type { CatalogueModel } from "@gateway/catalogue";
import { pricesAt } from "@gateway/catalogue";
import type { ChatRequest } from "@gateway/proto/router/v1/chat";
import { thinkingBudgetOf } from "../adapters/thinking-budget.js";
import { estimatePromptTokens } from "../usage/token-estimate.js";

// When neither the client nor the catalogue bounds the answer.
export const fallbackMaxTokens = 4_096;

/** The output tokens one choice may run to; a thinking budget may come on top of the answer's. */
export const maxOutputTokens = (request: ChatRequest, model: CatalogueModel) =>
  (request.maxTokens ?? model.default_max_tokens ?? model.max_output_tokens ?? fallbackMaxTokens) +
  (thinkingBudgetOf(request) ?? 0);

/**
 * The most a request can use and cost: its prompt plus every choice running to its token
 * limit; the tokens are what it counts against tokens per minute.
 */
export function worstCase(
  request: ChatRequest,
  model: CatalogueModel,
  multiplierBasisPoints: number,
): { tokens: number; costMicros: bigint } {
  const promptTokens = estimatePromptTokens(request, model);
  const completionTokens = maxOutputTokens(request, model) * (request.n ?? 1);
  return worstCaseOfTokens(promptTokens, completionTokens, model, multiplierBasisPoints);
}

/** The most a prompt of `promptTokens` (never short of the vendor's count) answered with `completionTokens` can cost. */
export function worstCaseOfTokens(
  promptTokens: number,
  completionTokens: number,
  model: CatalogueModel,
  multiplierBasisPoints: number,
): { tokens: number; costMicros: bigint } {
  // The estimate is never short of the prompt the vendor counts, and bands only rise, so the
  // band it picks is never below the one the bill picks.
  const price = pricesAt(model.price, promptTokens);
  const costMicros = priceUsage({
    promptTokens,
    completionTokens,
    // Every prompt token may be a cache write (Anthropic), which can cost more than plain input.
    cacheCreationTokens: promptTokens,
    inputPriceMicros: price.input,
    cacheWritePriceMicros: Math.max(price.input, price.cache_write ?? 0),
    outputPriceMicros: price.output,
    multiplierBasisPoints: multiplierBasisPoints || 10_000,
  });
  return { tokens: promptTokens + completionTokens, costMicros };
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

/**
 * The most an image request billed by token (OpenAI's GPT image models) can cost: the prompt's
 * text, each image it sends (an edit's) and each image asked for, every image at the gateway's
 * per-image token bound, since the vendor's count is known only from its answer.
 */
export function imageTokensWorstCase(
  prompt: { textTokens: number; images: number },
  imagesAsked: number,
  tokensPerImage: number,
  model: CatalogueModel,
  multiplierBasisPoints: number,
): { usage: { promptTokens: number; completionTokens: number; imageTokens: number }; costMicros: bigint } {
  const imageTokens = prompt.images * tokensPerImage;
  const usage = {
    promptTokens: prompt.textTokens + imageTokens,
    completionTokens: imagesAsked * tokensPerImage,
    imageTokens,
  };
  const price = pricesAt(model.price, usage.promptTokens);
  const costMicros = priceUsage({
    promptTokens: usage.promptTokens,
    completionTokens: usage.completionTokens,
    imageInputTokens: imageTokens,
    inputPriceMicros: price.input,
    outputPriceMicros: price.output,
    imageInputPriceMicros: model.images?.image_input_price ?? 0,
    multiplierBasisPoints: multiplierBasisPoints || 10_000,
  });
  return { usage, costMicros };
}
