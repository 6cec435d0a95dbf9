import { describe, expect, it } from "vitest";
import { parseYuan } from "./money.js";

describe("parseYuan", () => {
  it.each([
    ["1", 1_000_000n],
    ["12.5", 12_500_000n],
    ["12.34", 12_340_000n],
    ["0.07", 70_000n],
    [" 100 ", 100_000_000n],
    [19.99, 19_990_000n],
    [0.29, 290_000n],
    ["999999999.99", 999_999_999_990_000n],
  ])("converts %j exactly", (value, micros) => {
    expect(parseYuan(value, 0n)).toEqual({ micros });
  });

  it.each(["", "abc", "1.234", "-1", "1e3", ".5", "1.", "0x10", "1,5", "NaN"])("rejects %j", (value) => {
    expect(parseYuan(value)).toHaveProperty("error");
  });

  it("enforces the minimum and the maximum", () => {
    expect(parseYuan("0.99")).toEqual({ error: "must be at least 1 yuan" });
    expect(parseYuan("1")).toEqual({ micros: 1_000_000n });
    expect(parseYuan("0", 0n)).toEqual({ micros: 0n });
    expect(parseYuan("1000000000")).toHaveProperty("error");
  });

  it("never goes through floating point", () => {
    // 0.1 + 0.2 !== 0.3 in floats; as strings the amounts stay exact.
    const sum =
      (parseYuan("0.1", 0n) as { micros: bigint }).micros + (parseYuan("0.2", 0n) as { micros: bigint }).micros;
    expect(sum).toBe((parseYuan("0.3", 0n) as { micros: bigint }).micros);
  });
});
