import { readFileSync } from "node:fs";
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

  // Usage as xAI reported it for grok-3-mini (the recordings corpus): reasoning apart from completion_tokens.
  const recording = (name: string) =>
    readFileSync(new URL(`../../../../../tools/replay/recordings/xai/${name}`, import.meta.url), "utf8");
  const streamedChunks = recording("aisdk-xai-text.chunks.txt")
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line) as { usage?: unknown });
  const recorded = {
    unary: (JSON.parse(recording("aisdk-xai-tool-call.json")) as { usage: unknown }).usage,
    streamed: streamedChunks.findLast((chunk) => chunk.usage)!.usage,
  };

  it("counts xAI's reasoning, reported apart from completion_tokens, as completion tokens", () => {
    const completion = fromOpenAICompletion({ id: "x", choices: [], usage: recorded.unary });
    expect(completion.usage).toEqual({
      promptTokens: 291,
      completionTokens: 215,
      totalTokens: 506,
      cachedTokens: 244,
      reasoningTokens: 189,
    });
  });

  it.each([
    ["apart, as xAI streams it", recorded.streamed, [12, 291, 303, 290]],
    [
      "within, as OpenAI counts it",
      {
        prompt_tokens: 10,
        completion_tokens: 300,
        total_tokens: 310,
        completion_tokens_details: { reasoning_tokens: 256 },
      },
      [10, 300, 310, 256],
    ],
  ])("reads a usage chunk with reasoning counted %s", (_, usage, [prompt, completion, total, reasoning]) => {
    expect(fromOpenAIChunk({ id: "x", choices: [], usage }).usage).toMatchObject({
      promptTokens: prompt,
      completionTokens: completion,
      totalTokens: total,
      reasoningTokens: reasoning,
    });
  });

  it("carries the vendor's logprobs, as it sent them, on choices and chunk choices", () => {
    const logprobs = {
      content: [{ token: "Hi", logprob: -0.25, bytes: [72, 105], top_logprobs: [{ token: "Hi", logprob: -0.25 }] }],
      refusal: null,
    };
    const message = { role: "assistant", content: "Hi" };
    const completion = fromOpenAICompletion({ choices: [{ index: 0, message, logprobs, finish_reason: "stop" }] });
    expect(JSON.parse(completion.choices[0]!.logprobsJson!)).toEqual(logprobs);
    const chunk = fromOpenAIChunk({ choices: [{ index: 0, delta: { content: "Hi" }, logprobs }] });
    expect(JSON.parse(chunk.choices[0]!.logprobsJson!)).toEqual(logprobs);
    expect(fromOpenAIChunk({ choices: [{ index: 0, delta: {}, logprobs: null }] }).choices[0]!.logprobsJson).toBe(
      undefined,
    );
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
