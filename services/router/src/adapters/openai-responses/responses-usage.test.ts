import { describe, expect, it } from "vitest";
import { usageOfResponse } from "./responses-usage.js";

describe("the usage of a Responses API answer", () => {
  it("reads input, cached, output and reasoning tokens and the tier that served", () => {
    const response = {
      object: "response",
      service_tier: "default",
      usage: {
        input_tokens: 1200,
        input_tokens_details: { cached_tokens: 1024 },
        output_tokens: 300,
        output_tokens_details: { reasoning_tokens: 256 },
        total_tokens: 1500,
      },
    };
    expect(usageOfResponse(response)).toEqual({
      promptTokens: 1200,
      completionTokens: 300,
      totalTokens: 1500,
      cachedTokens: 1024,
      reasoningTokens: 256,
      serviceTier: "default",
    });
  });

  it("leaves out the details the vendor did not send", () => {
    expect(usageOfResponse({ usage: { input_tokens: 5, output_tokens: 7 } })).toEqual({
      promptTokens: 5,
      completionTokens: 7,
      totalTokens: 12,
      cachedTokens: undefined,
      reasoningTokens: undefined,
      serviceTier: undefined,
    });
  });

  it("is undefined for a response without usage", () => {
    expect(usageOfResponse({ object: "response", usage: null })).toBeUndefined();
  });
});
