import { describe, expect, it } from "vitest";
import { mapTokenPrices, priceAt, pricesAt, scaleTokenPrice, tokenPriceSchema } from "./token-prices.js";

const tiered = { base: 100, tiers: [{ start: 200_000, price: 200 }] };

describe("priceAt", () => {
  it("bills a flat price at every prompt length", () => {
    expect(priceAt(7, 0)).toBe(7);
    expect(priceAt(7, 5_000_000)).toBe(7);
  });

  it("bills a band once the prompt is longer than its start, as the dataset does", () => {
    expect(priceAt(tiered, 0)).toBe(100);
    expect(priceAt(tiered, 200_000)).toBe(100);
    expect(priceAt(tiered, 200_001)).toBe(200);
  });

  it("bills the band of the longest start the prompt exceeds", () => {
    const bands = {
      base: 1,
      tiers: [
        { start: 10, price: 2 },
        { start: 20, price: 3 },
      ],
    };
    expect([5, 11, 20, 21].map((tokens) => priceAt(bands, tokens))).toEqual([1, 2, 2, 3]);
  });
});

describe("pricesAt", () => {
  it("chooses every price's band by the same prompt, leaving unpriced cache traffic out", () => {
    const prices = { input: tiered, output: { base: 400, tiers: [{ start: 200_000, price: 600 }] }, cache_read: 10 };
    expect(pricesAt(prices, 300_000)).toEqual({ input: 200, output: 600, cache_read: 10 });
    expect(pricesAt(prices, 1_000)).toEqual({ input: 100, output: 400, cache_read: 10 });
  });
});

describe("tokenPriceSchema", () => {
  it("takes a number or a base with rising bands", () => {
    expect(tokenPriceSchema.safeParse(5).success).toBe(true);
    expect(tokenPriceSchema.safeParse(tiered).success).toBe(true);
  });

  it("refuses bands that fall, in price or in start, so a longer prompt never costs less per token", () => {
    const cheaper = { base: 100, tiers: [{ start: 10, price: 90 }] };
    const unordered = {
      base: 1,
      tiers: [
        { start: 20, price: 2 },
        { start: 10, price: 3 },
      ],
    };
    const falling = {
      base: 1,
      tiers: [
        { start: 10, price: 3 },
        { start: 20, price: 2 },
      ],
    };
    for (const price of [cheaper, unordered, falling]) expect(tokenPriceSchema.safeParse(price).success).toBe(false);
    expect(tokenPriceSchema.safeParse({ base: 1, tiers: [] }).success).toBe(false);
    expect(tokenPriceSchema.safeParse(1.5).success).toBe(false);
  });
});

describe("scaleTokenPrice and mapTokenPrices", () => {
  it("change the base and every band, keeping the bands' starts", () => {
    const doubled = mapTokenPrices({ input: tiered, output: 3 }, (price) => scaleTokenPrice(price, (n) => n * 2));
    expect(doubled).toEqual({ input: { base: 200, tiers: [{ start: 200_000, price: 400 }] }, output: 6 });
  });
});
