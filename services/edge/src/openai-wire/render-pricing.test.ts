import type { ModelPricing } from "@gateway/proto/router/v1/router";
import { describe, expect, it } from "vitest";
import { renderPricing } from "./render-pricing.js";

const tokens = { prompt: "13.5", completion: "67.5", inputCacheRead: "1.35", inputCacheWrite: "16.875" };
const pricing: ModelPricing = {
  currency: "CNY",
  multiplierBasisPoints: 15_000,
  tokens,
  tiers: [],
  images: [],
  audioSecond: undefined,
  videoSecond: undefined,
};

describe("a model's pricing on /v1/models", () => {
  it("names token prices as OpenRouter does, with the currency, unit and group multiplier, and nothing a model lacks", () => {
    expect(renderPricing(pricing, tokens)).toStrictEqual({
      currency: "CNY",
      unit: "1M tokens",
      group_multiplier: 1.5,
      prompt: "13.5",
      completion: "67.5",
      input_cache_read: "1.35",
      input_cache_write: "16.875",
    });
  });

  it("lists prompt-length tiers with every token price, image prices and per-second prices where the model has them", () => {
    const tier = { prompt: "27", completion: "101.25", inputCacheRead: "2.7", inputCacheWrite: "33.75" };
    const rendered = renderPricing(
      {
        ...pricing,
        tiers: [{ minPromptTokens: 200_000, prices: tier }],
        images: [{ size: "1024x1024", quality: "hd", price: "0.864" }],
        audioSecond: "0.00108",
      },
      tokens,
    );
    expect(rendered).toMatchObject({
      tiers: [
        {
          min_prompt_tokens: 200_000,
          prompt: "27",
          completion: "101.25",
          input_cache_read: "2.7",
          input_cache_write: "33.75",
        },
      ],
      image: [{ size: "1024x1024", quality: "hd", price: "0.864" }],
      audio_second: "0.00108",
    });
    expect(rendered).not.toHaveProperty("video_second");
  });
});
