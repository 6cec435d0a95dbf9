import type { CatalogueModel } from "@gateway/catalogue";
import { ChatRequest, type Usage } from "@gateway/proto/router/v1/chat";
import { describe, expect, it } from "vitest";
import { combinedUsage, StreamTally } from "./chat-stream.js";

function tallyWith(usage: Usage): StreamTally {
  const tally = new StreamTally(ChatRequest.fromPartial({ model: "m" }), { id: "m" } as CatalogueModel);
  tally.vendorUsage = usage;
  return tally;
}

describe("a stream's usage", () => {
  it("keeps the vendor's cache reads, cache writes and reasoning counts, which the ledger prices apart", () => {
    const usage = { promptTokens: 1200, completionTokens: 40, totalTokens: 1240 };
    const claude = tallyWith({ ...usage, cachedTokens: 1165, cacheCreationTokens: 20 });
    const thinker = tallyWith({ ...usage, cachedTokens: 5, reasoningTokens: 30 });
    expect(combinedUsage([claude]).usage).toEqual({ ...usage, cachedTokens: 1165, cacheCreationTokens: 20 });
    expect(combinedUsage([claude, thinker])).toEqual({
      usage: {
        promptTokens: 2400,
        completionTokens: 80,
        totalTokens: 2480,
        cachedTokens: 1170,
        cacheCreationTokens: 20,
        reasoningTokens: 30,
      },
      estimated: false,
    });
  });

  it("keeps how the vendor served a streamed call, so a surcharge is billed as served", () => {
    const usage = { promptTokens: 10, completionTokens: 5, totalTokens: 15 };
    const served = combinedUsage([
      tallyWith({ ...usage, serviceTier: "default", speed: "standard", inferenceGeo: "us" }),
    ]);
    expect(served.usage).toMatchObject({ serviceTier: "default", speed: "standard", inferenceGeo: "us" });
  });
});
