import { z } from "zod";

const micros = z.number().int().min(0);

/**
 * A price in micro-yuan per million tokens: one number, or a base and bands above a prompt
 * length (the dataset's tiers). Bands only rise, in length and in price, so a longer prompt never
 * costs less per token: a reservation priced at a prompt estimate that is never short of the
 * real prompt never falls below the bill.
 */
export const tokenPriceSchema = z.union([
  micros,
  z
    .object({
      base: micros,
      tiers: z.array(z.object({ start: z.number().int().min(0), price: micros })).min(1),
    })
    .refine(
      ({ base, tiers }) =>
        tiers.every((tier, index) => {
          const before = tiers[index - 1];
          return before ? tier.start > before.start && tier.price >= before.price : tier.price >= base;
        }),
      { message: "tiers must rise: each start above the one before, each price at least the one before and the base" },
    ),
]);

/** A model's token prices; prompt-cache reads and writes cost `input` unless priced apart. */
export const tokenPricesSchema = z.object({
  input: tokenPriceSchema,
  output: tokenPriceSchema,
  cache_read: tokenPriceSchema.optional(),
  cache_write: tokenPriceSchema.optional(),
});

export type TokenPrice = z.infer<typeof tokenPriceSchema>;
export type TokenPrices = z.infer<typeof tokenPricesSchema>;

/** The four token prices of a model, each a T. */
export interface PricesOf<T> {
  input: T;
  output: T;
  cache_read?: T;
  cache_write?: T;
}

/** Token prices with the band of one prompt length chosen. */
export type FlatTokenPrices = PricesOf<number>;

export const tokenPriceFields = ["input", "output", "cache_read", "cache_write"] as const;
export type TokenPriceField = (typeof tokenPriceFields)[number];

/**
 * The price per million tokens of a request whose prompt (cached or not) has `promptTokens`:
 * the band of the longest start it exceeds, for all its tokens of that kind (the dataset's rule:
 * a band applies once the prompt is longer than its start).
 */
export function priceAt(price: TokenPrice, promptTokens: number): number {
  if (typeof price === "number") return price;
  let chosen = price.base;
  for (const tier of price.tiers) if (promptTokens > tier.start) chosen = tier.price;
  return chosen;
}

/** Every token price of a model at one prompt length: what a request with that prompt is billed. */
export function pricesAt(prices: TokenPrices, promptTokens: number): FlatTokenPrices {
  return mapTokenPrices(prices, (price) => priceAt(price, promptTokens));
}

/** Each price of a model through `change`; prices it leaves out stay out. */
export function mapTokenPrices<T>(prices: PricesOf<TokenPrice>, change: (price: TokenPrice) => T): PricesOf<T> {
  const { input, output, cache_read, cache_write } = prices;
  return {
    input: change(input),
    output: change(output),
    ...(cache_read !== undefined && { cache_read: change(cache_read) }),
    ...(cache_write !== undefined && { cache_write: change(cache_write) }),
  };
}

/** A price with every number (the base and each band) through `change`, bands kept. */
export function scaleTokenPrice(price: TokenPrice, change: (micros: number) => number): TokenPrice {
  if (typeof price === "number") return change(price);
  return { base: change(price.base), tiers: price.tiers.map(({ start, price }) => ({ start, price: change(price) })) };
}
