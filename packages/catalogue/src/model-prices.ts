import type { CatalogueFile, ModelEntry } from "./catalogue-schema.js";
import { bundledDataset, datasetEntryOf, inMicroYuan, type PriceDataset, vendorPricing } from "./dataset-prices.js";
import {
  scaleTokenPrice,
  type TokenPrice,
  type TokenPriceField,
  type TokenPrices,
  tokenPriceFields,
} from "./token-prices.js";

export type ResolvedPrices = { prices: TokenPrices } | { problem: string };

/**
 * The token prices of one entry: its own `price` when it sets one, else the dataset's in force on
 * `on` at the catalogue's exchange rate. An explicit price needs a stated reason where the vendor
 * lists yuan prices or the dataset lacks the model, so every departure from the dataset is explained.
 */
export function resolveModelPrices(
  entry: ModelEntry,
  file: Pick<CatalogueFile, "vendors" | "exchange_rate">,
  on: Date,
  dataset: PriceDataset = bundledDataset,
): ResolvedPrices {
  const ownedBy = file.vendors[entry.vendor]?.owned_by;
  if (!ownedBy) return { problem: `unknown vendor ${entry.vendor}` };
  const found = datasetEntryOf(entry, ownedBy, dataset, on);
  if (!entry.price) {
    const converted = "problem" in found ? found : inMicroYuan(found, file.exchange_rate);
    return "problem" in converted ? { problem: `has no price, and ${converted.problem}` } : converted;
  }
  if (entry.price_reason === undefined) {
    if (vendorPricing[ownedBy].listsYuan) {
      return { problem: `sets its price without a price_reason (${entry.vendor} lists yuan prices)` };
    }
    if ("problem" in found) return { problem: `sets its price without a price_reason (${found.problem})` };
  }
  return { prices: entry.price };
}

/** One token price of the catalogue that the dataset does not share. */
export interface PriceDifference {
  model: string;
  field: TokenPriceField;
  // Micro-yuan per million tokens; the dataset's converted at the catalogue's exchange rate, null where it has none.
  ours: TokenPrice;
  dataset: TokenPrice | null;
  // The dataset's id of the model the entry matched.
  dataset_model: string | null;
  reason: string | null;
}

// What a request pays for a price left out: cache traffic is billed at the input price.
const effective = (prices: TokenPrices, field: TokenPriceField): TokenPrice => prices[field] ?? prices.input;

// Written in any key order, the same base and bands.
const canonical = (price: TokenPrice) => JSON.stringify(scaleTokenPrice(price, (micros) => micros));
const samePrice = (one: TokenPrice, other: TokenPrice) => canonical(one) === canonical(other);

/**
 * Every explicit token price of the catalogue that differs from the dataset's on `on` (or that the
 * dataset lacks), with the entry's stated reason. Entries without `price` take the dataset's and never differ.
 */
export function priceDifferences(
  file: CatalogueFile,
  dataset: PriceDataset = bundledDataset,
  on: Date = new Date(),
): PriceDifference[] {
  const differences: PriceDifference[] = [];
  for (const entry of file.models) {
    const ownedBy = file.vendors[entry.vendor]?.owned_by;
    if (!entry.price || !ownedBy) continue;
    const found = datasetEntryOf(entry, ownedBy, dataset, on);
    const theirs = "problem" in found ? undefined : inMicroYuan(found, file.exchange_rate);
    const prices = theirs && "prices" in theirs ? theirs.prices : undefined;
    // Against the dataset, what each kind of token costs; without it, the prices the entry sets.
    const fields = prices ? tokenPriceFields : tokenPriceFields.filter((field) => entry.price?.[field] !== undefined);
    for (const field of fields) {
      const ours = effective(entry.price, field);
      const datasets = prices ? effective(prices, field) : null;
      if (datasets !== null && samePrice(ours, datasets)) continue;
      differences.push({
        model: entry.id,
        field,
        ours,
        dataset: datasets,
        dataset_model: "problem" in found ? null : found.model,
        reason: entry.price_reason ?? null,
      });
    }
  }
  return differences;
}
