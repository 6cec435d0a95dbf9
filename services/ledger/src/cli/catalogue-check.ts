import { formatYuan } from "@gateway/billing";
import type { TokenPrice } from "@gateway/catalogue";
import {
  type CatalogueFile,
  catalogueFileSchema,
  type PriceDifference,
  priceDifferences,
  readCatalogueFile,
} from "@gateway/catalogue";
import { table } from "./table.js";

// Yuan per million tokens, with each band above its prompt length.
const shown = (price: TokenPrice | null) => {
  if (price === null) return "not in dataset";
  if (typeof price === "number") return formatYuan(BigInt(price));
  const bands = price.tiers.map((tier) => `>${tier.start}: ${formatYuan(BigInt(tier.price))}`);
  return `${formatYuan(BigInt(price.base))} (${bands.join(", ")})`;
};

/** The catalogue a `catalogue check` reads: the file given, else the live one the store serves. */
export async function catalogueToCheck(
  path: string | undefined,
  readLive: () => Promise<{ revision: number; catalogue: unknown }>,
): Promise<{ source: string; file: CatalogueFile }> {
  if (path) return { source: path, file: readCatalogueFile(path) };
  const { revision, catalogue } = await readLive();
  return { source: `the live catalogue (revision ${revision})`, file: catalogueFileSchema.parse(catalogue) };
}

/**
 * `catalogue check`: every price of the catalogue that differs from the bundled price dataset's
 * (as of today, at the catalogue's exchange rate), with the reason the entry states.
 */
export function checkCatalogue({ source, file }: { source: string; file: CatalogueFile }): {
  answer: unknown;
  render: () => string;
} {
  const differences: PriceDifference[] = priceDifferences(file);
  const rate = file.exchange_rate;
  const answer = { source, exchange_rate: rate ?? null, differences };
  const render = () => {
    const heading = rate
      ? `${differences.length} prices differ from the dataset's at ${rate.yuan_per_usd} yuan per US dollar (set ${rate.on}); yuan per million tokens:`
      : `${differences.length} prices differ from the dataset's (the catalogue sets no exchange_rate); yuan per million tokens:`;
    if (differences.length === 0) return `Every price of ${source} is the dataset's.`;
    return `${heading}\n${table([
      ["MODEL", "FIELD", "OURS", "DATASET", "REASON"],
      ...differences.map((difference) => [
        difference.model,
        difference.field,
        shown(difference.ours),
        shown(difference.dataset),
        difference.reason ?? "(none given)",
      ]),
    ])}`;
  };
  return { answer, render };
}
