import { describe, expect, it } from "vitest";
import { formatYuan, multipliedYuan, priceUsage } from "./price.js";

const base = { promptTokens: 0, completionTokens: 0, inputPriceMicros: 0, outputPriceMicros: 0 };

describe("priceUsage", () => {
  it("prices cache reads and writes at their own rates, the input price when a rate is absent", () => {
    // 1,000 prompt tokens: 600 read at 0.2, 300 written at 2.5, 100 plain at 2 yuan/M; 100 output at 8.
    const cached = {
      ...base,
      promptTokens: 1_000,
      completionTokens: 100,
      cachedTokens: 600,
      cacheCreationTokens: 300,
      inputPriceMicros: 2_000_000,
      outputPriceMicros: 8_000_000,
      multiplierBasisPoints: 10_000,
    };
    expect(priceUsage({ ...cached, cacheReadPriceMicros: 200_000, cacheWritePriceMicros: 2_500_000 })).toBe(
      120n + 750n + 200n + 800n,
    );
    expect(priceUsage(cached)).toBe(2_000n + 800n);
    // Cache counts above the prompt count never make the plain part negative.
    expect(priceUsage({ ...cached, cachedTokens: 2_000, cacheCreationTokens: 0, cacheReadPriceMicros: 1 })).toBe(
      1n + 800n,
    );
  });

  it("prices image input tokens at their own rate, the input price when it is absent", () => {
    // A GPT image edit: 1,200 prompt tokens, 1,000 of them image tokens at 57.6 yuan/M and 200 text
    // at 36; 4,160 image output tokens at 216.
    const edit = {
      ...base,
      promptTokens: 1_200,
      completionTokens: 4_160,
      imageInputTokens: 1_000,
      inputPriceMicros: 36_000_000,
      outputPriceMicros: 216_000_000,
      multiplierBasisPoints: 10_000,
    };
    expect(priceUsage({ ...edit, imageInputPriceMicros: 57_600_000 })).toBe(57_600n + 7_200n + 898_560n);
    expect(priceUsage(edit)).toBe(43_200n + 898_560n);
  });

  it("prices exact amounts without rounding", () => {
    // 1,000 prompt tokens at 2 yuan/M and 500 completion tokens at 8 yuan/M = 0.006 yuan.
    const cost = priceUsage({
      ...base,
      promptTokens: 1_000,
      completionTokens: 500,
      inputPriceMicros: 2_000_000,
      outputPriceMicros: 8_000_000,
      multiplierBasisPoints: 10_000,
    });
    expect(cost).toBe(6_000n);
  });

  it("rounds a fraction of a micro up, never down", () => {
    expect(priceUsage({ ...base, promptTokens: 1, inputPriceMicros: 1, multiplierBasisPoints: 10_000 })).toBe(1n);
    expect(priceUsage({ ...base, promptTokens: 1_000_001, inputPriceMicros: 1, multiplierBasisPoints: 10_000 })).toBe(
      2n,
    );
  });

  it("charges nothing for nothing", () => {
    expect(priceUsage({ ...base, multiplierBasisPoints: 15_000 })).toBe(0n);
    expect(priceUsage({ ...base, completionTokens: 10, multiplierBasisPoints: 15_000 })).toBe(0n);
  });

  it("applies the group multiplier after rounding, rounding up again", () => {
    // 3 micros at list price; 1.5× is 4.5 → 5.
    const input = { ...base, promptTokens: 3, inputPriceMicros: 1_000_000 };
    expect(priceUsage({ ...input, multiplierBasisPoints: 10_000 })).toBe(3n);
    expect(priceUsage({ ...input, multiplierBasisPoints: 15_000 })).toBe(5n);
    // 0.5× of 3 is 1.5 → 2.
    expect(priceUsage({ ...input, multiplierBasisPoints: 5_000 })).toBe(2n);
  });

  it("stays exact where floating point would not", () => {
    const cost = priceUsage({
      promptTokens: 2_147_483_647,
      completionTokens: 2_147_483_647,
      inputPriceMicros: 999_999_999_999,
      outputPriceMicros: 999_999_999_999,
      multiplierBasisPoints: 10_001,
    });
    // 2 × 2,147,483,647 × 999,999,999,999 / 10^6, rounded up, then × 1.0001 rounded up.
    const catalogue = (2n * 2_147_483_647n * 999_999_999_999n + 999_999n) / 1_000_000n;
    expect(cost).toBe((catalogue * 10_001n + 9_999n) / 10_000n);
    // The same sum in floating point loses the last micro: (a × p + a × p) / 10^6 is 4294967293995705.
    const float = Math.ceil((2_147_483_647 * 999_999_999_999 * 2) / 1_000_000);
    expect(catalogue).not.toBe(BigInt(float));
  });

  it("never turns negative inputs into a credit", () => {
    expect(priceUsage({ ...base, promptTokens: -5, inputPriceMicros: 1_000_000, multiplierBasisPoints: 10_000 })).toBe(
      0n,
    );
  });

  it("adds work billed per unit to the token cost before the group multiplier", () => {
    const cost = priceUsage({
      ...base,
      promptTokens: 1_000_000,
      inputPriceMicros: 2,
      billedUnits: 3,
      unitPriceMicros: 40_000,
      multiplierBasisPoints: 15_000,
    });
    expect(cost).toBe(((2n + 3n * 40_000n) * 15_000n) / 10_000n);
  });
});

describe("formatYuan", () => {
  it("prints six decimals and a sign", () => {
    expect(formatYuan(12_340_000n)).toBe("12.340000");
    expect(formatYuan(7n)).toBe("0.000007");
    expect(formatYuan(-1_500n)).toBe("-0.001500");
    expect(formatYuan(0n)).toBe("0.000000");
  });
});

describe("multipliedYuan", () => {
  it("applies a group multiplier to micro-yuan exactly, without trailing zeros", () => {
    expect(multipliedYuan(1_100_000, 15_000)).toBe("1.65");
    expect(multipliedYuan(2_000_000, 10_000)).toBe("2");
    expect(multipliedYuan(25, 15_000)).toBe("0.0000375");
    expect(multipliedYuan(1, 1)).toBe("0.0000000001");
    expect(multipliedYuan(0, 15_000)).toBe("0");
  });
});
