import { describe, expect, it } from "vitest";
import { fenToMicros, formatDecimalYuan, formatYuan, yuanToFen, yuanToMicros } from "./money.js";

describe("formatYuan", () => {
  it("shows balances in yuan with two decimals", () => {
    expect(formatYuan(12_345_678)).toBe("¥12.35");
    expect(formatYuan(1_000_000)).toBe("¥1.00");
    expect(formatYuan(0)).toBe("¥0.00");
  });

  it("groups thousands", () => {
    expect(formatYuan(1_234_567_000_000, "en")).toBe("¥1,234,567.00");
  });

  it("keeps sub-fen costs visible instead of rounding them to zero", () => {
    expect(formatYuan(123)).toBe("¥0.000123");
    expect(formatYuan(5_000)).toBe("¥0.005");
    expect(formatYuan(-42)).toBe("-¥0.000042");
  });

  it("rounds amounts of a fen or more to the fen", () => {
    expect(formatYuan(10_000)).toBe("¥0.01");
    expect(formatYuan(15_001)).toBe("¥0.02");
  });
});

describe("yuanToFen", () => {
  it("converts whole fen", () => {
    expect(yuanToFen(1)).toBe(100);
    expect(yuanToFen(5.2)).toBe(520);
    expect(yuanToFen(0.07)).toBe(7);
  });

  it("refuses fractions of a fen", () => {
    expect(yuanToFen(1.234)).toBeUndefined();
    expect(yuanToFen(Number.NaN)).toBeUndefined();
  });
});

describe("micros", () => {
  it("converts fen and yuan to micros", () => {
    expect(fenToMicros(100)).toBe(1_000_000);
    expect(yuanToMicros(2.5)).toBe(2_500_000);
    expect(yuanToMicros(-0.000001)).toBe(-1);
  });
});

describe("formatDecimalYuan", () => {
  it("shows a decimal price with every digit it has, at least two", () => {
    expect(formatDecimalYuan("1.65")).toBe("¥1.65");
    expect(formatDecimalYuan("2")).toBe("¥2.00");
    expect(formatDecimalYuan("0.0000375")).toBe("¥0.0000375");
    expect(formatDecimalYuan("1234.5", "en")).toBe("¥1,234.50");
  });
});
