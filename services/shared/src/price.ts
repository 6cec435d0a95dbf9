const TOKENS_PER_PRICE_UNIT = 1_000_000n;
const MICROS_PER_YUAN = 1_000_000n;
const BASIS_POINTS = 10_000n;

/** Integer division rounding towards +infinity; the ledger never rounds a charge down. */
const divideRoundingUp = (dividend: bigint, divisor: bigint) => (dividend + divisor - 1n) / divisor;

export interface PriceInput {
  promptTokens: number;
  completionTokens: number;
  /** Catalogue prices in micro-yuan per million tokens, as carried by the usage event. */
  inputPriceMicros: number;
  outputPriceMicros: number;
  /** Work billed per unit (images, audio or video seconds) and the catalogue price of one unit. */
  billedUnits?: number;
  unitPriceMicros?: number;
  /** The key's model group multiplier: 10000 = 1x, 15000 = 1.5x. */
  multiplierBasisPoints: number;
}

/**
 * Cost of one request in micro-yuan: the catalogue cost rounded up to a whole micro, then
 * the group multiplier applied and rounded up again. All BigInt, so no token count or price
 * can lose precision. Negative inputs are treated as zero: usage never credits an account.
 */
export function priceUsage(input: PriceInput): bigint {
  const nonNegative = (value: number) => BigInt(Math.max(0, Math.trunc(value)));
  const tokenCost = divideRoundingUp(
    nonNegative(input.promptTokens) * nonNegative(input.inputPriceMicros) +
      nonNegative(input.completionTokens) * nonNegative(input.outputPriceMicros),
    TOKENS_PER_PRICE_UNIT,
  );
  const catalogueCost = tokenCost + nonNegative(input.billedUnits ?? 0) * nonNegative(input.unitPriceMicros ?? 0);
  return divideRoundingUp(catalogueCost * nonNegative(input.multiplierBasisPoints), BASIS_POINTS);
}

/** Renders micros as yuan with all six decimals, e.g. -1500n → "-0.001500". */
export function formatYuan(micros: bigint): string {
  const sign = micros < 0n ? "-" : "";
  const magnitude = micros < 0n ? -micros : micros;
  const fraction = (magnitude % MICROS_PER_YUAN).toString().padStart(6, "0");
  return `${sign}${magnitude / MICROS_PER_YUAN}.${fraction}`;
}
