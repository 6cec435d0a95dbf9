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
  /**
   * Of promptTokens: those read from the vendor's prompt cache and those written to it, each
   * billed at its own rate (the input price when the rate is absent or zero).
   */
  cachedTokens?: number;
  cacheCreationTokens?: number;
  cacheReadPriceMicros?: number;
  cacheWritePriceMicros?: number;
  /**
   * Of promptTokens: images read by a model that prices image input apart from text (OpenAI's GPT
   * image models), billed at their own rate (the input price when it is absent or zero).
   */
  imageInputTokens?: number;
  imageInputPriceMicros?: number;
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
const nonNegative = (value: number) => BigInt(Math.max(0, Math.trunc(value)));

/** Prompt tokens times their prices, in micro-yuan per million tokens: plain, cache reads, cache writes, images. */
function promptCostPerMillion(input: PriceInput): bigint {
  const prompt = nonNegative(input.promptTokens);
  const read = nonNegative(input.cachedTokens ?? 0);
  const written = nonNegative(input.cacheCreationTokens ?? 0);
  const images = nonNegative(input.imageInputTokens ?? 0);
  // A vendor's detail counts larger than its prompt count cannot make the plain part negative.
  const apart = read + written + images;
  const plain = prompt > apart ? prompt - apart : 0n;
  const inputPrice = nonNegative(input.inputPriceMicros);
  const priceOr = (micros: number | undefined) => (micros ? nonNegative(micros) : inputPrice);
  return (
    plain * inputPrice +
    read * priceOr(input.cacheReadPriceMicros) +
    written * priceOr(input.cacheWritePriceMicros) +
    images * priceOr(input.imageInputPriceMicros)
  );
}

export function priceUsage(input: PriceInput): bigint {
  const tokenCost = divideRoundingUp(
    promptCostPerMillion(input) + nonNegative(input.completionTokens) * nonNegative(input.outputPriceMicros),
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

/**
 * A catalogue price in micro-yuan with a group multiplier applied, as the exact decimal of yuan
 * it makes: 1_100_000 at 15000 basis points is "1.65". Never rounded, so a price list shows what
 * the ledger multiplies.
 */
export function multipliedYuan(micros: number, multiplierBasisPoints: number): string {
  const scaled = nonNegative(micros) * nonNegative(multiplierBasisPoints);
  const unit = MICROS_PER_YUAN * BASIS_POINTS;
  const fraction = (scaled % unit).toString().padStart(10, "0").replace(/0+$/, "");
  return fraction ? `${scaled / unit}.${fraction}` : `${scaled / unit}`;
}
