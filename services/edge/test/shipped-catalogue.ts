import { join } from "node:path";
import { Catalogue, pricesAt } from "@gateway/catalogue";
import { repoRoot } from "@gateway/stack";

// The catalogue the test stack runs with, for tests that check a bill against its prices.
const catalogue = Catalogue.fromFile(join(repoRoot, "infra/catalogue/models.yaml"), {
  env: {},
  // Only so that every model has a channel: nothing is called.
  simulatorUrl: "http://127.0.0.1:1",
});

export const shippedModel = (model: string, group: string) => catalogue.find(model, group)!;
/** The model's token prices for a prompt of `promptTokens` (the band a tiered price bills it at). */
export const shippedPrice = (model: string, group: string, promptTokens = 0) =>
  pricesAt(shippedModel(model, group).price, promptTokens);
