import { type ConditionalPrice, calcPrice, type ModelInfo, type ModelPrice } from "@pydantic/genai-prices";
import type { ExchangeRate, ModelEntry, VendorEntry } from "./catalogue-schema.js";
import {
  mapTokenPrices,
  type PricesOf,
  scaleTokenPrice,
  type TokenPrice,
  type TokenPrices,
  tokenPricesSchema,
} from "./token-prices.js";

/** A dataset price in US dollars per million tokens, flat or in bands above a prompt length. */
export type UsdPrice = number | { base: number; tiers: { start: number; price: number }[] };

/** What the dataset says one model costs on one day. */
export interface DatasetPrices {
  // The dataset's own id of the model the catalogue entry matched.
  model: string;
  usd: PricesOf<UsdPrice>;
}

/** Where model prices come from: the bundled @pydantic/genai-prices data, or a test's own. */
export interface PriceDataset {
  /** The prices effective on `on` of the model `modelId` at `provider`, or none when it lacks the model's token prices. */
  lookup(provider: string, modelId: string, on: Date): DatasetPrices | undefined;
}

// The dataset's provider id of each vendor, and whether the vendor's own list is in yuan (its
// explicit catalogue prices then need a stated reason). Alibaba Cloud's Qwen models are not in it.
export const vendorPricing: Record<VendorEntry["owned_by"], { provider: string; listsYuan: boolean }> = {
  openai: { provider: "openai", listsYuan: false },
  anthropic: { provider: "anthropic", listsYuan: false },
  google: { provider: "google", listsYuan: false },
  xai: { provider: "x-ai", listsYuan: false },
  deepseek: { provider: "deepseek", listsYuan: true },
  alibaba: { provider: "alibaba", listsYuan: true },
  moonshot: { provider: "moonshotai", listsYuan: true },
};

/**
 * The dataset entry in force on `on`: the latest dated one started by then. Hour-of-day entries
 * (DeepSeek's peak hours) are passed over: a catalogue price holds all day.
 */
function effectivePrice(model: ModelInfo, on: Date): ModelPrice {
  if (!Array.isArray(model.prices)) return model.prices;
  const dated = model.prices.filter((entry: ConditionalPrice) => entry.constraint?.type !== "time_of_date");
  const started = dated.filter(
    (entry) => entry.constraint?.type !== "start_date" || new Date(entry.constraint.start_date) <= on,
  );
  return (started.at(-1) ?? dated[0] ?? model.prices[0]!).prices;
}

const usdPrice = (price: ModelPrice[string]): UsdPrice | undefined =>
  price === undefined || typeof price === "number" ? price : { base: price.base, tiers: [...price.tiers] };

/** The dataset as the package bundles it; never updated over the network. */
export const bundledDataset: PriceDataset = {
  lookup(provider, modelId, on) {
    // Matching alone: the usage is empty, and the calculation's own date choice is not used.
    const matched = calcPrice({}, modelId, { providerId: provider, timestamp: on });
    if (!matched) return undefined;
    const price = effectivePrice(matched.model, on);
    const input = usdPrice(price.input_mtok);
    if (input === undefined) return undefined;
    const cacheRead = usdPrice(price.cache_read_mtok);
    const cacheWrite = usdPrice(price.cache_write_mtok);
    return {
      model: matched.model.id,
      usd: {
        input,
        // Embedding models have no output tokens to price.
        output: usdPrice(price.output_mtok) ?? 0,
        ...(cacheRead !== undefined && { cache_read: cacheRead }),
        ...(cacheWrite !== undefined && { cache_write: cacheWrite }),
      },
    };
  },
};

/** Dollars per million tokens as whole micro-yuan per million tokens at the exchange rate. */
const toMicroYuan = (usd: UsdPrice, rate: ExchangeRate): TokenPrice =>
  scaleTokenPrice(usd, (dollars) => Math.round(dollars * rate.yuan_per_usd * 1_000_000));

/** The dataset's prices for a catalogue entry (by its dataset_id and dataset_provider when set), or why there are none. */
export function datasetEntryOf(
  entry: Pick<ModelEntry, "id" | "dataset_id" | "dataset_provider">,
  ownedBy: VendorEntry["owned_by"],
  dataset: PriceDataset,
  on: Date,
): DatasetPrices | { problem: string } {
  const provider = entry.dataset_provider ?? vendorPricing[ownedBy].provider;
  const modelId = entry.dataset_id ?? entry.id;
  return (
    dataset.lookup(provider, modelId, on) ?? {
      problem: `the price dataset has no token prices for ${modelId} at ${provider}`,
    }
  );
}

/** The dataset's prices in the catalogue's units: whole micro-yuan per million tokens at the exchange rate. */
export function inMicroYuan(
  found: DatasetPrices,
  rate: ExchangeRate | undefined,
): { prices: TokenPrices } | { problem: string } {
  if (!rate) return { problem: "prices from the dataset need the catalogue's exchange_rate" };
  const prices = tokenPricesSchema.safeParse(mapTokenPrices(found.usd, (usd) => toMicroYuan(usd, rate)));
  if (!prices.success)
    return { problem: `the dataset's prices for ${found.model} do not fit: ${prices.error.message}` };
  return { prices: prices.data };
}
