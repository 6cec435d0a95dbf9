import type { ChatChunk, Delta } from "@gateway/proto/router/v1/chat";
import { describe, expect, it } from "vitest";
import { MessageStreamEvents } from "./message-stream-events.js";

const chunk = (delta: Partial<Delta>, finishReason?: string): ChatChunk => ({
  id: "msg_1",
  created: 0,
  model: "claude-sonnet-4-5",
  choices: [{ index: 0, delta: { toolCalls: [], ...delta }, finishReason }],
});

const usageChunk: ChatChunk = {
  id: "msg_1",
  created: 0,
  model: "claude-sonnet-4-5",
  choices: [],
  usage: { promptTokens: 30, completionTokens: 7, totalTokens: 37, cachedTokens: 20, cacheCreationTokens: 4 },
};

describe("canonical chunks as Anthropic stream events", () => {
  it("opens one block at a time: signed thinking, text, then tool calls with their argument pieces", () => {
    const events = new MessageStreamEvents("claude-sonnet-4-5");
    const chunks = [
      chunk({ role: "assistant", reasoningContent: "Let me" }),
      chunk({ reasoningContent: " think" }),
      chunk({ reasoningSignature: "sig" }),
      chunk({ content: "Checking." }),
      chunk({ toolCalls: [{ index: 0, id: "toolu_1", name: "get_weather", arguments: "" }] }),
      chunk({ toolCalls: [{ index: 0, arguments: '{"city":' }] }),
      chunk({ toolCalls: [{ index: 0, arguments: '"Paris"}' }] }),
      chunk({}, "tool_calls"),
      usageChunk,
    ];
    const all = [...events.start(chunks[0]), ...chunks.flatMap((each) => events.onChunk(each)), ...events.finish()];
    expect(
      all.map((event) => [event.type, event.index ?? null, (event.delta as { type?: string })?.type ?? null]),
    ).toEqual([
      ["message_start", null, null],
      ["ping", null, null],
      ["content_block_start", 0, null],
      ["content_block_delta", 0, "thinking_delta"],
      ["content_block_delta", 0, "thinking_delta"],
      ["content_block_delta", 0, "signature_delta"],
      ["content_block_stop", 0, null],
      ["content_block_start", 1, null],
      ["content_block_delta", 1, "text_delta"],
      ["content_block_stop", 1, null],
      ["content_block_start", 2, null],
      ["content_block_delta", 2, "input_json_delta"],
      ["content_block_delta", 2, "input_json_delta"],
      ["content_block_stop", 2, null],
      ["message_delta", null, null],
      ["message_stop", null, null],
    ]);
    expect(all.find((event) => event.type === "content_block_start" && event.index === 2)!.content_block).toEqual({
      type: "tool_use",
      id: "toolu_1",
      name: "get_weather",
      input: {},
    });
    expect(all.at(-2)).toEqual({
      type: "message_delta",
      delta: { stop_reason: "tool_use", stop_sequence: null },
      usage: { input_tokens: 6, output_tokens: 7, cache_creation_input_tokens: 4, cache_read_input_tokens: 20 },
    });
  });

  it("names the stop sequence and gives a non-Claude answer a message id of Anthropic's form", () => {
    const events = new MessageStreamEvents("gpt-4o-mini");
    const start = events.start({ id: "chatcmpl-9", created: 0, model: "", choices: [] });
    expect((start[0]!.message as { id: string; model: string }).id).toMatch(/^msg_[0-9a-f]{24}$/);
    expect((start[0]!.message as { model: string }).model).toBe("gpt-4o-mini");
    events.onChunk({
      ...chunk({ content: "Hi" }, "stop"),
      choices: [{ index: 0, delta: { toolCalls: [], content: "Hi" }, finishReason: "stop", stopSequence: "END" }],
    });
    expect(events.finish().at(-2)!.delta).toEqual({ stop_reason: "stop_sequence", stop_sequence: "END" });
  });
});
