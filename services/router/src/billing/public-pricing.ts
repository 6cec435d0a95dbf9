import { multipliedYuan } from "@gateway/billing";
import type { AudioRules, ImageRules, VideoRules } from "@gateway/catalogue";
import type { ModelPricing, TokenPricing } from "@gateway/proto/router/v1/router";

/**
 * A token price as the catalogue writes it, in micro-yuan per million tokens: one price, or a base
 * price with bands, each for prompts of at least `start` tokens (@pydantic/genai-prices' shape).
 */
export type TokenPriceField = number | { base: number; tiers: readonly { start: number; price: number }[] };

/** The price a request whose prompt has `promptTokens` tokens pays under one field. */
function priceAt(field: TokenPriceField, promptTokens: number): number {
  if (typeof field === "number") return field;
  const band = field.tiers.filter((tier) => tier.start <= promptTokens).at(-1);
  return band?.price ?? field.base;
}

/** A model's token prices, each possibly banded by prompt length. */
export interface TokenPriceFields {
  input: TokenPriceField;
  output: TokenPriceField;
  cache_read?: TokenPriceField;
  cache_write?: TokenPriceField;
}

const tierStarts = (field: TokenPriceField | undefined) =>
  field === undefined || typeof field === "number" ? [] : field.tiers.map((tier) => tier.start);

/** Every token price of a model in effect for a prompt length, in yuan for the group. */
function tokenPricing(price: TokenPriceFields, promptTokens: number, basisPoints: number): TokenPricing {
  const yuan = (field: TokenPriceField) => multipliedYuan(priceAt(field, promptTokens), basisPoints);
  // Cache prices absent (or zero) bill cached tokens at the prompt price: billing's price.ts.
  const cached = (field: TokenPriceField | undefined) => (field ? yuan(field) : yuan(price.input));
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
    price: TokenPriceFields;
    images?: Pick<ImageRules, "prices">;
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
    audioSecond: perUnit(model.audio?.price_per_second),
    videoSecond: perUnit(model.video?.price_per_second),
  };
}
