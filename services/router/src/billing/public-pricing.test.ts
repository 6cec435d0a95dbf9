import { pricesAt } from "@gateway/catalogue";
import { describe, expect, it } from "vitest";
import { publicPricing } from "./public-pricing.js";

describe("a model's public pricing", () => {
  it("states token prices in yuan per million with the group's multiplier, cache prices defaulting to the prompt's", () => {
    const pricing = publicPricing({ price: { input: 1_080_000, output: 4_320_000, cache_read: 540_000 } }, 15_000);
    expect(pricing).toEqual({
      currency: "CNY",
      multiplierBasisPoints: 15_000,
      tokens: { prompt: "1.62", completion: "6.48", inputCacheRead: "0.81", inputCacheWrite: "1.62" },
      tiers: [],
      images: [],
      audioSecond: undefined,
      videoSecond: undefined,
    });
  });

  it("lists one tier per prompt length where any price changes, each with every price in effect there", () => {
    const price = {
      input: { base: 9_000_000, tiers: [{ start: 200_000, price: 18_000_000 }] },
      output: { base: 45_000_000, tiers: [{ start: 200_000, price: 67_500_000 }] },
      cache_read: 900_000,
      cache_write: { base: 11_250_000, tiers: [{ start: 128_000, price: 22_500_000 }] },
    };
    const { tokens, tiers } = publicPricing({ price }, 10_000);
    expect(tokens).toEqual({ prompt: "9", completion: "45", inputCacheRead: "0.9", inputCacheWrite: "11.25" });
    expect(tiers).toEqual([
      {
        minPromptTokens: 128_001,
        prices: { prompt: "9", completion: "45", inputCacheRead: "0.9", inputCacheWrite: "22.5" },
      },
      {
        minPromptTokens: 200_001,
        prices: { prompt: "18", completion: "67.5", inputCacheRead: "0.9", inputCacheWrite: "22.5" },
      },
    ]);
  });

  it("names the first prompt length each band bills, as billing's pricesAt applies it", () => {
    for (const start of [271_999, 272_000]) {
      const price = { input: { base: 2_000_000, tiers: [{ start, price: 4_000_000 }] }, output: 10_000_000 };
      const [tier] = publicPricing({ price }, 10_000).tiers;
      expect(tier!.minPromptTokens).toBe(start + 1);
      expect(tier!.prices?.prompt).toBe("4");
      expect(pricesAt(price, tier!.minPromptTokens).input).toBe(4_000_000);
      expect(pricesAt(price, tier!.minPromptTokens - 1).input).toBe(2_000_000);
    }
  });

  it("states an image model billed by token by its text, image input and image output token prices", () => {
    const price = { input: 36_000_000, output: 216_000_000 };
    const pricing = publicPricing({ price, images: { prices: {}, image_input_price: 57_600_000 } }, 15_000);
    expect(pricing).toMatchObject({ images: [], inputImage: "86.4", tokens: { prompt: "54", completion: "324" } });
    expect(publicPricing({ price }, 15_000).inputImage).toBeUndefined();
  });

  it("prices each image size and quality, and audio and video by the second, with the multiplier", () => {
    const price = { input: 0, output: 0 };
    const images = { prices: { "1024x1024": { standard: 288_000, hd: 576_000 } } };
    expect(publicPricing({ price, images }, 15_000).images).toEqual([
      { size: "1024x1024", quality: "standard", price: "0.432" },
      { size: "1024x1024", quality: "hd", price: "0.864" },
    ]);
    const audio = { price_per_second: 720 };
    expect(publicPricing({ price, audio }, 15_000).audioSecond).toBe("0.00108");
    const video = { price_per_second: 720_000 };
    expect(publicPricing({ price, video }, 10_000)).toMatchObject({
      videoSecond: "0.72",
      audioSecond: undefined,
    });
  });
});
