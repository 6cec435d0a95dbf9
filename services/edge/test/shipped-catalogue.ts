import { join } from "node:path";
import { Catalogue } from "@gateway/catalogue/catalogue";
import { repoRoot } from "@gateway/stack";

// The catalogue the test stack runs with, for tests that check a bill against its prices.
const catalogue = Catalogue.fromFile(join(repoRoot, "infra/catalogue/models.yaml"), {
  env: {},
  // Only so that every model has a channel: nothing is called.
  simulatorUrl: "http://127.0.0.1:1",
});

export const shippedModel = (model: string, group: string) => catalogue.find(model, group)!;
export const shippedPrice = (model: string, group: string) => shippedModel(model, group).price;
