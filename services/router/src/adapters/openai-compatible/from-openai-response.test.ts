import { describe, expect, it } from "vitest";
import { fromOpenAIChunk, fromOpenAICompletion } from "./from-openai-response.js";

describe("OpenAI-protocol answers to canonical form", () => {
  it("maps a completion with usage details", () => {
    const completion = fromOpenAICompletion({
      id: "chatcmpl-1",
      created: 5,
      model: "deepseek-chat",
      choices: [
        { index: 0, finish_reason: "stop", message: { role: "assistant", content: "hi", reasoning_content: "r" } },
      ],
      usage: { prompt_tokens: 10, completion_tokens: 2, total_tokens: 12, prompt_cache_hit_tokens: 4 },
    });
    expect(completion.choices[0]!.message).toMatchObject({ content: "hi", reasoningContent: "r", toolCalls: [] });
    expect(completion.usage).toEqual({
      promptTokens: 10,
      completionTokens: 2,
      totalTokens: 12,
      cachedTokens: 4,
      reasoningTokens: undefined,
    });
  });

  it("reads Kimi's usage from inside the choice", () => {
    const chunk = fromOpenAIChunk({
      id: "c",
      created: 1,
      model: "moonshot-v1-128k",
      choices: [
        {
          index: 0,
          delta: {},
          finish_reason: "stop",
          usage: { prompt_tokens: 3, completion_tokens: 5, total_tokens: 8 },
        },
      ],
    });
    expect(chunk.usage).toMatchObject({ promptTokens: 3, completionTokens: 5, totalTokens: 8 });
    expect(chunk.choices[0]!.finishReason).toBe("stop");
  });

  it("maps streamed tool-call fragments", () => {
    const chunk = fromOpenAIChunk({
      id: "c",
      created: 1,
      model: "m",
      choices: [{ index: 0, delta: { tool_calls: [{ index: 1, function: { arguments: '{"a' } }] } }],
    });
    expect(chunk.choices[0]!.delta!.toolCalls).toEqual([
      { index: 1, id: undefined, name: undefined, arguments: '{"a' },
    ]);
  });

  it("refuses a malformed answer with a retryable error", () => {
    expect(() => fromOpenAICompletion({ choices: "nope" })).toThrow(expect.objectContaining({ httpStatus: 503 }));
  });
});
