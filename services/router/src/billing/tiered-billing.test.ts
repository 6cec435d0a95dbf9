import { fileURLToPath } from "node:url";
import { priceUsage, type RequestFacts, UsageOutcome, usageEvent } from "@gateway/billing";
import { Catalogue, type CatalogueModel } from "@gateway/catalogue";
import type { ChatRequest } from "@gateway/proto/router/v1/chat";
import { describe, expect, it } from "vitest";
import { estimatePromptTokens } from "../usage/token-estimate.js";
import { worstCase } from "./worst-case-cost.js";

const catalogue = Catalogue.fromFile(
  fileURLToPath(new URL("../../../../infra/catalogue/models.yaml", import.meta.url)),
  { env: {}, simulatorUrl: "http://127.0.0.1:8090" },
);

// A shipped model with bands that start at a prompt short enough to test: dearer above 50 tokens.
const band = 50;
const tiered: CatalogueModel = {
  ...catalogue.find("gpt-4o-mini", "premium")!,
  price: {
    input: { base: 1_000_000, tiers: [{ start: band, price: 2_000_000 }] },
    output: { base: 4_000_000, tiers: [{ start: band, price: 6_000_000 }] },
    cache_read: { base: 100_000, tiers: [{ start: band, price: 200_000 }] },
  },
};

const facts: RequestFacts = {
  caller: { requestId: "r", accountId: "a", keyId: "k", modelGroup: "premium", multiplierBasisPoints: 10_000 },
  model: tiered,
  channel: tiered.channels[0]!,
  endpoint: "/v1/chat/completions",
  stream: false,
  startedAt: Date.now(),
};

const chat = (words: number): ChatRequest =>
  ({
    model: tiered.id,
    messages: [{ role: "user", text: "word ".repeat(words), parts: [], toolCalls: [] }],
    tools: [],
    maxTokens: 20,
    extraJson: "",
    anthropicExtraJson: "",
  }) as unknown as ChatRequest;

/** The usage event of a finished call, and what the ledger charges for it. */
function billed(promptTokens: number, completionTokens: number, cachedTokens = 0) {
  const usage = { promptTokens, completionTokens, totalTokens: promptTokens + completionTokens, cachedTokens };
  const event = usageEvent(facts, { usage, estimated: false, outcome: UsageOutcome.USAGE_OUTCOME_OK });
  return { event, costMicros: priceUsage({ ...event, multiplierBasisPoints: 10_000 }) };
}

describe("a tiered price", () => {
  it("is billed at the band of the prompt the vendor counted, for every token of the request", () => {
    expect(billed(band, 10).event).toMatchObject({
      inputPriceMicros: 1_000_000,
      outputPriceMicros: 4_000_000,
      cacheReadPriceMicros: 100_000,
      cacheWritePriceMicros: 1_000_000,
    });
    expect(billed(band + 1, 10, 20).event).toMatchObject({
      inputPriceMicros: 2_000_000,
      outputPriceMicros: 6_000_000,
      cacheReadPriceMicros: 200_000,
      cacheWritePriceMicros: 2_000_000,
    });
    // In micro-yuan a token: 31 uncached at 2, 20 cached at 0.2, 10 out at 6.
    expect(billed(band + 1, 10, 20).costMicros).toBe(126n);
  });

  it("reserves at the band of the prompt estimate, never less than any bill the request can run to", () => {
    for (const words of [5, 200]) {
      const request = chat(words);
      const estimate = estimatePromptTokens(request, tiered);
      const reserved = worstCase(request, tiered, 10_000).costMicros;
      for (let promptTokens = 0; promptTokens <= estimate; promptTokens += 1) {
        expect(billed(promptTokens, 20).costMicros).toBeLessThanOrEqual(reserved);
      }
    }
    expect(estimatePromptTokens(chat(5), tiered)).toBeLessThanOrEqual(band);
    expect(estimatePromptTokens(chat(200), tiered)).toBeGreaterThan(band);
    const long = chat(200);
    const estimate = estimatePromptTokens(long, tiered);
    // The dearer band's, in micro-yuan a token: every prompt token at 2 (a cache write costs input here), 20 out at 6.
    expect(worstCase(long, tiered, 10_000).costMicros).toBe(BigInt(estimate * 2 + 20 * 6));
  });
});
