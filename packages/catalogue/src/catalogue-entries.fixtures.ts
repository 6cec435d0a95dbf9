import type { ModelEntry } from "./catalogue-schema.js";

/** A chat model of the tests' vendor `v` at its own prices, with what a test changes. */
export const chatEntry = (id: string, extra: Partial<ModelEntry> = {}): ModelEntry => ({
  id,
  vendor: "v",
  created: 1,
  context_window: 1000,
  endpoints: ["/v1/chat/completions"],
  capabilities: [],
  price: { input: 1, output: 2 },
  price_reason: "a test vendor's own prices",
  groups: ["default"],
  ...extra,
});
