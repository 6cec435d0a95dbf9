import { multipliedYuan } from "@gateway/billing";
import {
  type AudioRules,
  type ImageRules,
  priceAt,
  type TokenPrice,
  type TokenPrices,
  type VideoRules,
} from "@gateway/catalogue";
import type { ModelPricing, TokenPricing } from "@gateway/proto/router/v1/router";

/**
 * The price bands are the catalogue's (`priceAt`, the rule billing uses): a band bills a prompt
 * longer than its `start`, so the list names `start + 1` as the first length it applies to. The
 * dataset writes similar thresholds either way (271,999 on one model, 272,000 on another): each
 * reads as what it bills, never a length a token short of it.
 */
const tierStarts = (field: TokenPrice | undefined) =>
  field === undefined || typeof field === "number" ? [] : field.tiers.map((tier) => tier.start + 1);

/** Every token price of a model in effect for a prompt length, in yuan for the group. */
function tokenPricing(price: TokenPrices, promptTokens: number, basisPoints: number): TokenPricing {
  const yuan = (field: TokenPrice) => multipliedYuan(priceAt(field, promptTokens), basisPoints);
  // Cache prices absent (or zero) bill cached tokens at the prompt price: billing's price.ts.
  const cached = (field: TokenPrice | undefined) => (field ? yuan(field) : yuan(price.input));
  return {
    prompt: yuan(price.input),
    completion: yuan(price.output),
    inputCacheRead: cached(price.cache_read),
    inputCacheWrite: cached(price.cache_write),
  };
}

/** What a model costs a group whose multiplier is `basisPoints`, as /v1/models lists it. */
export function publicPricing(
  model: {
    price: TokenPrices;
    images?: Pick<ImageRules, "prices" | "image_input_price">;
    audio?: Pick<AudioRules, "price_per_second">;
    video?: Pick<VideoRules, "price_per_second">;
  },
  basisPoints: number,
): ModelPricing {
  const { price } = model;
  const starts = [price.input, price.output, price.cache_read, price.cache_write].flatMap(tierStarts);
  const perUnit = (micros: number | undefined) =>
    micros === undefined ? undefined : multipliedYuan(micros, basisPoints);
  return {
    currency: "CNY",
    multiplierBasisPoints: basisPoints,
    tokens: tokenPricing(price, 0, basisPoints),
    tiers: [...new Set(starts)]
      .sort((a, b) => a - b)
      .map((start) => ({ minPromptTokens: start, prices: tokenPricing(price, start, basisPoints) })),
    images: Object.entries(model.images?.prices ?? {}).flatMap(([size, byQuality]) =>
      Object.entries(byQuality).map(([quality, micros]) => ({
        size,
        quality,
        price: multipliedYuan(micros, basisPoints),
      })),
    ),
    inputImage: perUnit(model.images?.image_input_price),
    audioSecond: perUnit(model.audio?.price_per_second),
    videoSecond: perUnit(model.video?.price_per_second),
  };
}
