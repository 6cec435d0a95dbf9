import { describe, expect, it } from "vitest";
import {
  AnthropicStreamMapper,
  fromAnthropicMessage,
  parseStreamEvent,
  toFinishReason,
} from "./from-anthropic-response.js";

describe("Anthropic answers to canonical form", () => {
  it("maps a text answer with cache-aware usage", () => {
    const completion = fromAnthropicMessage({
      id: "msg_01",
      type: "message",
      role: "assistant",
      model: "claude-sonnet-4-5",
      content: [
        { type: "text", text: "Hello", citations: null },
        { type: "text", text: " there" },
      ],
      stop_reason: "end_turn",
      stop_sequence: null,
      usage: { input_tokens: 10, output_tokens: 4, cache_creation_input_tokens: 2, cache_read_input_tokens: 30 },
    });
    expect(completion).toEqual({
      id: "msg_01",
      created: 0,
      model: "claude-sonnet-4-5",
      choices: [
        {
          index: 0,
          finishReason: "stop",
          stopSequence: undefined,
          message: { content: "Hello there", reasoningContent: undefined, toolCalls: [], thinkingBlocks: [] },
        },
      ],
      usage: {
        promptTokens: 42,
        completionTokens: 4,
        totalTokens: 46,
        cachedTokens: 30,
        cacheCreationTokens: 2,
        reasoningTokens: undefined,
      },
    });
  });

  it("maps tool_use blocks to tool calls with JSON arguments", () => {
    const completion = fromAnthropicMessage({
      id: "msg_02",
      model: "claude-sonnet-4-5",
      content: [
        { type: "text", text: "Checking." },
        { type: "tool_use", id: "toolu_1", name: "get_weather", input: { city: "Paris" } },
        { type: "tool_use", id: "toolu_2", name: "get_time", input: {} },
      ],
      stop_reason: "tool_use",
      stop_sequence: null,
      usage: { input_tokens: 5, output_tokens: 9, cache_creation_input_tokens: null, cache_read_input_tokens: null },
    });
    expect(completion.choices[0]).toEqual({
      index: 0,
      finishReason: "tool_calls",
      stopSequence: undefined,
      message: {
        content: "Checking.",
        reasoningContent: undefined,
        toolCalls: [
          { id: "toolu_1", name: "get_weather", arguments: '{"city":"Paris"}' },
          { id: "toolu_2", name: "get_time", arguments: "{}" },
        ],
        thinkingBlocks: [],
      },
    });
    expect(completion.usage).toMatchObject({ promptTokens: 5, completionTokens: 9, cachedTokens: undefined });
  });

  it("keeps thinking blocks with their signatures, redacted ones too, and their text as reasoning content", () => {
    const completion = fromAnthropicMessage({
      id: "m",
      model: "x",
      content: [
        { type: "thinking", thinking: "hmm", signature: "s" },
        { type: "redacted_thinking", data: "d" },
      ],
      stop_reason: "max_tokens",
    });
    expect(completion.choices[0]!.message).toEqual({
      content: undefined,
      reasoningContent: "hmm",
      toolCalls: [],
      thinkingBlocks: [
        { thinking: "hmm", signature: "s" },
        { thinking: "", redactedData: "d" },
      ],
    });
    expect(completion.choices[0]!.finishReason).toBe("length");
    expect(completion.usage).toBeUndefined();
  });

  it.each([
    ["end_turn", "stop"],
    ["stop_sequence", "stop"],
    ["max_tokens", "length"],
    ["tool_use", "tool_calls"],
    ["refusal", "content_filter"],
    ["model_context_window_exceeded", "length"],
    ["pause_turn", "stop"],
    ["something_new", "stop"],
    [null, "stop"],
    ["toString", "stop"],
  ])("maps stop_reason %s to finish_reason %s", (stopReason, finishReason) => {
    expect(toFinishReason(stopReason)).toBe(finishReason);
  });

  it("refuses a malformed answer with a retryable error", () => {
    expect(() => fromAnthropicMessage({ content: "nope" })).toThrow(expect.objectContaining({ httpStatus: 503 }));
    expect(() => fromAnthropicMessage({ content: [{ type: "tool_use", input: {} }] })).toThrow(
      expect.objectContaining({ httpStatus: 503 }),
    );
  });
});

describe("Anthropic stream events to canonical chunks", () => {
  const events = (...payloads: unknown[]) => payloads.map((payload) => parseStreamEvent(JSON.stringify(payload))!);

  it("skips unknown event types and refuses malformed JSON", () => {
    expect(parseStreamEvent('{"type":"some_future_event"}')).toBeUndefined();
    expect(() => parseStreamEvent("{oops")).toThrow(expect.objectContaining({ httpStatus: 503 }));
  });

  it("reports usage only when message_delta gives the output count", () => {
    const mapper = new AnthropicStreamMapper();
    const chunks = events(
      { type: "message_start", message: { id: "msg_1", model: "m", usage: { input_tokens: 7, output_tokens: 1 } } },
      { type: "message_delta", delta: { stop_reason: "end_turn", stop_sequence: null } },
      { type: "message_stop" },
    ).flatMap((event) => mapper.map(event));
    expect(chunks.some((chunk) => chunk.usage)).toBe(false);
    expect(mapper.finished).toBe(true);
  });

  it("lets message_delta update the input counts", () => {
    const mapper = new AnthropicStreamMapper();
    const chunks = events(
      { type: "message_start", message: { id: "msg_1", model: "m", usage: { input_tokens: 7, output_tokens: 1 } } },
      {
        type: "message_delta",
        delta: { stop_reason: "end_turn" },
        usage: { output_tokens: 3, input_tokens: 9, cache_read_input_tokens: null },
      },
      { type: "message_stop" },
    ).flatMap((event) => mapper.map(event));
    expect(chunks.at(-1)!.usage).toEqual({
      promptTokens: 9,
      completionTokens: 3,
      totalTokens: 12,
      cachedTokens: undefined,
      cacheCreationTokens: undefined,
      reasoningTokens: undefined,
    });
  });

  it("turns an error event into a retryable 503", () => {
    const mapper = new AnthropicStreamMapper();
    const [error] = events({ type: "error", error: { type: "overloaded_error", message: "Overloaded" } });
    expect(() => mapper.map(error!)).toThrow(expect.objectContaining({ httpStatus: 503 }));
  });

  it("maps thinking deltas to reasoning content and signature deltas to the reasoning signature", () => {
    const mapper = new AnthropicStreamMapper();
    const chunks = events(
      { type: "message_start", message: { id: "msg_1", model: "m" } },
      { type: "content_block_start", index: 0, content_block: { type: "thinking", thinking: "" } },
      { type: "content_block_delta", index: 0, delta: { type: "thinking_delta", thinking: "Let me see" } },
      { type: "content_block_delta", index: 0, delta: { type: "signature_delta", signature: "sig" } },
    ).flatMap((event) => mapper.map(event));
    expect(chunks.map((chunk) => chunk.choices[0]!.delta)).toEqual([
      { role: "assistant", reasoningContent: "Let me see", toolCalls: [] },
      { reasoningSignature: "sig", toolCalls: [] },
    ]);
  });
});
