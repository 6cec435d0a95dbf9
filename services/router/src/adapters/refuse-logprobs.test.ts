import type { CatalogueModel } from "@gateway/catalogue";
import { ChatRequest } from "@gateway/proto/router/v1/chat";
import { describe, expect, it } from "vitest";
import { toAnthropicRequest } from "./anthropic/to-anthropic-request.js";
import { toGeminiRequest } from "./gemini/to-gemini-request.js";

const claude = { id: "claude-sonnet-4-5", default_max_tokens: 1024, capabilities: [] } as unknown as CatalogueModel;
const asking = (extra: Record<string, unknown>) =>
  ChatRequest.fromPartial({
    model: "m",
    messages: [{ role: "user", text: "hi" }],
    extraJson: JSON.stringify(extra),
  });
const noImages = async () => {
  throw new Error("no images here");
};

describe("log probabilities from vendors that give none", () => {
  it("are refused with a 400 naming logprobs before Claude or Gemini is called", async () => {
    const refusal = { httpStatus: 400, param: "logprobs", code: "unsupported_parameter" };
    expect(() => toAnthropicRequest(asking({ logprobs: true, top_logprobs: 2 }), claude)).toThrow(
      expect.objectContaining(refusal),
    );
    await expect(toGeminiRequest(asking({ logprobs: true }), noImages)).rejects.toMatchObject(refusal);
  });

  it("pass when not asked for", async () => {
    expect(toAnthropicRequest(asking({ logprobs: false }), claude)).not.toHaveProperty("logprobs");
    await expect(toGeminiRequest(asking({ logprobs: false }), noImages)).resolves.not.toHaveProperty("logprobs");
  });
});
