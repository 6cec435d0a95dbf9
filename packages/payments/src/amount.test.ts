import { describe, expect, it } from "vitest";
import { fenToYuan, yuanToFen } from "./amount.js";

describe("yuanToFen", () => {
  it.each([
    ["0.01", 1],
    ["1.00", 100],
    ["1", 100],
    ["0.1", 10],
    ["460.00", 46000],
    ["0", 0],
    ["9999999999999.99", 999999999999999],
  ])("reads %s as %d fen, exactly", (text, fen) => {
    expect(yuanToFen(text)).toEqual({ ok: true, fen });
  });

  it.each(["1.001", "", "-1", "+1", "1e2", " 1", "1 ", "01.00", "1.", ".5", "NaN", "1,00", "0x10", "10000000000000"])(
    "refuses %j",
    (text) => {
      expect(yuanToFen(text)).toEqual({ ok: false, reason: "malformed_amount" });
    },
  );
});

describe("fenToYuan", () => {
  it("writes two decimals", () => {
    expect([1, 100, 46000, 0, 105].map(fenToYuan)).toEqual(["0.01", "1.00", "460.00", "0.00", "1.05"]);
  });

  it("round-trips with yuanToFen", () => {
    for (const fen of [1, 99, 100, 12345, 999999999999999])
      expect(yuanToFen(fenToYuan(fen))).toEqual({ ok: true, fen });
  });

  it("refuses what is no amount of fen", () => {
    for (const fen of [-1, 1.5, Number.NaN, 2 ** 53]) expect(() => fenToYuan(fen)).toThrow(RangeError);
  });
});
