import type { ModelPricing, TokenPricing } from "@gateway/proto/router/v1/router";

const renderTokenPricing = (prices: TokenPricing) => ({
  prompt: prices.prompt,
  completion: prices.completion,
  input_cache_read: prices.inputCacheRead,
  input_cache_write: prices.inputCacheWrite,
});

/**
 * A model's `pricing` on /v1/models, after OpenRouter's list (decimal strings, the same token field
 * names) but in yuan per million tokens, for the asking key's group with its multiplier applied.
 * Banded, per-image and per-second prices appear only on models that have them.
 */
export function renderPricing(pricing: ModelPricing, tokens: TokenPricing) {
  return {
    currency: pricing.currency,
    unit: "1M tokens",
    group_multiplier: pricing.multiplierBasisPoints / 10_000,
    ...renderTokenPricing(tokens),
    ...(pricing.tiers.length > 0 && {
      tiers: pricing.tiers.map((tier) => ({
        min_prompt_tokens: tier.minPromptTokens,
        ...renderTokenPricing(tier.prices!),
      })),
    }),
    ...(pricing.images.length > 0 && { image: pricing.images }),
    ...(pricing.inputImage !== undefined && { input_image: pricing.inputImage }),
    ...(pricing.audioSecond !== undefined && { audio_second: pricing.audioSecond }),
    ...(pricing.videoSecond !== undefined && { video_second: pricing.videoSecond }),
  };
}
