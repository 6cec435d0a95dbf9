import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { Catalogue } from "./catalogue.js";
import { type CatalogueFile, catalogueFileSchema, type ModelEntry } from "./catalogue-schema.js";
import { bundledDataset } from "./dataset-prices.js";
import { priceDifferences, resolveModelPrices } from "./model-prices.js";

const rate = { yuan_per_usd: 7.2, on: "2026-11-28" };
const today = new Date("2026-11-28T12:00:00Z");

const vendor = (owned_by: CatalogueFile["vendors"][string]["owned_by"]) => ({
  owned_by,
  protocol: "anthropic" as const,
  base_url: "https://vendor.example",
  simulator_path: "",
  api_key_env: "KEY",
  base_url_env: "URL",
});

const entry = (id: string, vendorName: string, extra: Partial<ModelEntry> = {}): ModelEntry => ({
  id,
  vendor: vendorName,
  created: 1,
  context_window: 1_000_000,
  endpoints: ["/v1/chat/completions"],
  capabilities: [],
  groups: ["default"],
  ...extra,
});

const fileOf = (...models: ModelEntry[]): CatalogueFile => ({
  exchange_rate: rate,
  groups: { default: { description: "d", multiplier_basis_points: 10_000 } },
  vendors: { anthropic: vendor("anthropic"), deepseek: vendor("deepseek") },
  channels: {
    main: { vendor: "anthropic", priority: 0, weight: 1 },
    ds: { vendor: "deepseek", priority: 0, weight: 1 },
  },
  models,
});

const resolve = (model: ModelEntry, file = fileOf(model)) => resolveModelPrices(model, file, today);

describe("a model's prices", () => {
  it("default to the dataset's, bands included, in micro-yuan at the exchange rate", () => {
    // The dataset: Claude Sonnet 4.5 at $3/$15 per million tokens, doubled input above 200K tokens.
    expect(resolve(entry("claude-sonnet-4-5", "anthropic"))).toEqual({
      prices: {
        input: { base: 21_600_000, tiers: [{ start: 200_000, price: 43_200_000 }] },
        output: { base: 108_000_000, tiers: [{ start: 200_000, price: 162_000_000 }] },
        cache_read: { base: 2_160_000, tiers: [{ start: 200_000, price: 4_320_000 }] },
        cache_write: { base: 27_000_000, tiers: [{ start: 200_000, price: 54_000_000 }] },
      },
    });
  });

  it("follow the exchange rate the operator sets", () => {
    const model = entry("claude-haiku-4-5", "anthropic");
    const at7 = resolve(model, { ...fileOf(model), exchange_rate: { yuan_per_usd: 7, on: "2026-11-01" } });
    expect(at7).toMatchObject({ prices: { input: 7_000_000, output: 35_000_000 } });
  });

  it("are looked up by dataset_id where the dataset names the model otherwise", () => {
    const renamed = entry("our-sonnet", "anthropic", { dataset_id: "claude-sonnet-4-5" });
    expect(resolve(renamed)).toEqual(resolve(entry("claude-sonnet-4-5", "anthropic")));
  });

  it("are the dataset's in force on the day: a dated price from its start, never an hour-of-day one", () => {
    // DeepSeek V4 Flash: $0.14 input until 2026-08-17, $0.22 from then, dearer in peak hours (not carried).
    const before = bundledDataset.lookup("deepseek", "deepseek-v4-flash", new Date("2026-08-01T12:00:00Z"));
    const after = bundledDataset.lookup("deepseek", "deepseek-v4-flash", new Date("2026-09-01T12:00:00Z"));
    const peakHour = bundledDataset.lookup("deepseek", "deepseek-v4-flash", new Date("2026-09-01T07:00:00Z"));
    expect(before?.usd.input).toBe(0.14);
    expect(after?.usd.input).toBe(0.22);
    expect(peakHour?.usd.input).toBe(0.22);
  });

  it("are the entry's own when it sets them, with a reason where the dataset has the model", () => {
    const own = { input: 1, output: 2 };
    expect(resolve(entry("claude-haiku-4-5", "anthropic", { price: own }))).toEqual({ prices: own });
  });

  it("are refused without a price_reason where the vendor lists yuan prices or the dataset lacks the model", () => {
    const yuan = resolve(entry("deepseek-v4-flash", "deepseek", { price: { input: 1, output: 2 } }));
    expect(yuan).toEqual({ problem: expect.stringContaining("without a price_reason (deepseek lists yuan prices)") });
    const unknown = resolve(entry("house-model", "anthropic", { price: { input: 1, output: 2 } }));
    expect(unknown).toEqual({ problem: expect.stringContaining("no token prices for house-model at anthropic") });
    const stated = entry("deepseek-v4-flash", "deepseek", { price: { input: 1, output: 2 }, price_reason: "yuan" });
    expect(resolve(stated)).toEqual({ prices: { input: 1, output: 2 } });
  });

  it("are refused when neither the entry nor the dataset has them, or the dataset's lack an exchange rate", () => {
    const unknown = entry("house-model", "anthropic");
    expect(() => Catalogue.fromData(fileOf(unknown), { env: {}, simulatorUrl: "http://sim" })).toThrow(
      "models.house-model: has no price, and the price dataset has no token prices for house-model at anthropic",
    );
    const haiku = entry("claude-haiku-4-5", "anthropic");
    const noRate = { ...fileOf(haiku), exchange_rate: undefined };
    expect(() => Catalogue.fromData(noRate, { env: {}, simulatorUrl: "http://sim" })).toThrow(
      "models.claude-haiku-4-5: has no price, and prices from the dataset need the catalogue's exchange_rate",
    );
  });
});

describe("priceDifferences", () => {
  it("lists each explicit price apart from the dataset's, with the dataset's and the stated reason", () => {
    const file = fileOf(
      entry("claude-sonnet-4-5", "anthropic"),
      entry("claude-haiku-4-5", "anthropic", {
        price: { input: 7_200_000, output: 36_000_000, cache_read: 720_000, cache_write: 9_000_000 },
      }),
      entry("claude-opus-4-5", "anthropic", {
        price: { input: 36_000_000, output: 180_000_000 },
        price_reason: "cache traffic at the input price",
      }),
      entry("house-model", "anthropic", { price: { input: 1, output: 2 }, price_reason: "our own" }),
    );
    const differences = priceDifferences(file, bundledDataset, today);
    expect(differences).toEqual([
      {
        model: "claude-opus-4-5",
        field: "cache_read",
        ours: 36_000_000,
        dataset: 3_600_000,
        dataset_model: "claude-opus-4-5",
        reason: "cache traffic at the input price",
      },
      {
        model: "claude-opus-4-5",
        field: "cache_write",
        ours: 36_000_000,
        dataset: 45_000_000,
        dataset_model: "claude-opus-4-5",
        reason: "cache traffic at the input price",
      },
      ...(["input", "output"] as const).map((field) => ({
        model: "house-model",
        field,
        ours: field === "output" ? 2 : 1,
        dataset: null,
        dataset_model: null,
        reason: "our own",
      })),
    ]);
  });

  it("finds every price of the shipped catalogue that leaves the dataset explained", () => {
    const shipped = fileURLToPath(new URL("../../../infra/catalogue/models.yaml", import.meta.url));
    const file = catalogueFileSchema.parse(parse(readFileSync(shipped, "utf8")));
    const unexplained = priceDifferences(file).filter((difference) => difference.reason === null);
    expect(unexplained).toEqual([]);
  });
});
