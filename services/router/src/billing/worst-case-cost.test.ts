import { fileURLToPath } from "node:url";
import { priceUsage, type RequestFacts, UsageOutcome, usageEvent } from "@gateway/billing";
import { Catalogue } from "@gateway/catalogue";
import { describe, expect, it } from "vitest";
import { imageTokensWorstCase } from "./worst-case-cost.js";

const catalogue = Catalogue.fromFile(
  fileURLToPath(new URL("../../../../infra/catalogue/models.yaml", import.meta.url)),
  { env: {}, simulatorUrl: "http://127.0.0.1:8090" },
);
const flare = catalogue.find("gpt-image-2.6-flare", "premium")!;

describe("imageTokensWorstCase", () => {
  it("reserves each image read and asked for at the bound, at the image input and output prices", () => {
    const { usage, costMicros } = imageTokensWorstCase({ textTokens: 100, images: 2 }, 3, 16_384, flare, 15_000);
    expect(usage).toEqual({ promptTokens: 100 + 2 * 16_384, completionTokens: 3 * 16_384, imageTokens: 2 * 16_384 });
    // 100 text tokens at 36 yuan/M, 32,768 image tokens at 57.6, 49,152 output tokens at 216; then 1.5x.
    const listMicros = Math.ceil((100 * 36_000_000 + 32_768 * 57_600_000 + 49_152 * 216_000_000) / 1_000_000);
    expect(costMicros).toBe(BigInt(Math.ceil((listMicros * 15_000) / 10_000)));
  });

  it("is never below the bill of a vendor count within the bound", () => {
    const facts: RequestFacts = {
      caller: { requestId: "r", accountId: "a", keyId: "k", modelGroup: "premium", multiplierBasisPoints: 10_000 },
      model: flare,
      channel: flare.channels[0]!,
      endpoint: "/v1/images/edits",
      stream: false,
      startedAt: Date.now(),
    };
    const vendor = { promptTokens: 900, completionTokens: 12_480, totalTokens: 13_380, imageTokens: 646 };
    const event = usageEvent(facts, { usage: vendor, estimated: false, outcome: UsageOutcome.USAGE_OUTCOME_OK });
    expect(event).toMatchObject({ imageInputTokens: 646, imageInputPriceMicros: 57_600_000 });
    const bill = priceUsage({ ...event, multiplierBasisPoints: 10_000 });
    // 254 text tokens, 646 image tokens and 12,480 output tokens at their three prices.
    expect(bill).toBe(BigInt(Math.ceil((254 * 36_000_000 + 646 * 57_600_000 + 12_480 * 216_000_000) / 1_000_000)));
    expect(imageTokensWorstCase({ textTokens: 254, images: 2 }, 2, 16_384, flare, 10_000).costMicros).toBeGreaterThan(
      bill,
    );
  });
});
