/** Money as the providers write it, turned into integer fen (1 yuan = 100 fen) without floating point. */

// Yuan with at most two decimals and no sign, exponent or leading zeros; 13 digits keep fen a safe integer.
const yuanPattern = /^(0|[1-9]\d{0,12})(?:\.(\d{1,2}))?$/;

export type AmountParse = { ok: true; fen: number } | { ok: false; reason: "malformed_amount" };

/** Alipay's `total_amount` ("0.01", "1.00", "1") as fen; anything else (e.g. "1.001", "-1", "1e2") is refused. */
export function yuanToFen(text: string): AmountParse {
  const match = yuanPattern.exec(text);
  if (!match) return { ok: false, reason: "malformed_amount" };
  const [, whole = "0", fraction = ""] = match;
  return { ok: true, fen: Number(whole) * 100 + Number(fraction.padEnd(2, "0")) };
}

/** Fen as the two-decimal yuan string Alipay's requests carry. */
export function fenToYuan(fen: number): string {
  if (!Number.isSafeInteger(fen) || fen < 0)
    throw new RangeError(`an amount in fen must be a non-negative integer, got ${fen}`);
  const whole = Math.floor(fen / 100);
  return `${whole}.${String(fen % 100).padStart(2, "0")}`;
}
