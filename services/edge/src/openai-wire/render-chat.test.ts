import { describe, expect, it } from "vitest";
import { renderChunk, renderCompletion } from "./render-chat.js";

describe("rendering canonical answers as OpenAI objects", () => {
  it("renders a completion with tool calls and a null content", () => {
    const rendered = renderCompletion({
      id: "chatcmpl-1",
      created: 1,
      model: "m",
      choices: [
        {
          index: 0,
          finishReason: "tool_calls",
          message: { toolCalls: [{ id: "call_1", name: "f", arguments: '{"a":1}' }], thinkingBlocks: [] },
        },
      ],
      usage: { promptTokens: 3, completionTokens: 4, totalTokens: 7, cachedTokens: 1 },
    });
    expect(rendered).toEqual({
      id: "chatcmpl-1",
      object: "chat.completion",
      created: 1,
      model: "m",
      choices: [
        {
          index: 0,
          message: {
            role: "assistant",
            content: null,
            refusal: null,
            tool_calls: [{ id: "call_1", type: "function", function: { name: "f", arguments: '{"a":1}' } }],
          },
          logprobs: null,
          finish_reason: "tool_calls",
        },
      ],
      usage: { prompt_tokens: 3, completion_tokens: 4, total_tokens: 7, prompt_tokens_details: { cached_tokens: 1 } },
    });
  });

  it("puts usage null on ordinary chunks only when the client asked for usage", () => {
    const chunk = {
      id: "c",
      created: 1,
      model: "m",
      choices: [{ index: 0, delta: { content: "Hi", toolCalls: [] } }],
    };
    expect(renderChunk(chunk, true)).toMatchObject({
      usage: null,
      choices: [{ delta: { content: "Hi" }, finish_reason: null }],
    });
    expect(renderChunk(chunk, false)).not.toHaveProperty("usage");
  });

  it("renders tool-call fragments the way OpenAI streams them", () => {
    const first = renderChunk(
      {
        id: "c",
        created: 1,
        model: "m",
        choices: [{ index: 0, delta: { toolCalls: [{ index: 0, id: "call_1", name: "f", arguments: "" }] } }],
      },
      false,
    );
    const later = renderChunk(
      {
        id: "c",
        created: 1,
        model: "m",
        choices: [{ index: 0, delta: { toolCalls: [{ index: 0, arguments: '{"a"' }] } }],
      },
      false,
    );
    expect(first.choices[0]!.delta).toEqual({
      tool_calls: [{ index: 0, id: "call_1", type: "function", function: { name: "f", arguments: "" } }],
    });
    expect(later.choices[0]!.delta).toEqual({ tool_calls: [{ index: 0, function: { arguments: '{"a"' } }] });
  });

  it("answers legacy function clients with function_call", () => {
    const completion = renderCompletion(
      {
        id: "c",
        created: 1,
        model: "m",
        choices: [
          {
            index: 0,
            finishReason: "tool_calls",
            message: { toolCalls: [{ id: "x", name: "f", arguments: "{}" }], thinkingBlocks: [] },
          },
        ],
        usage: undefined,
      },
      true,
    );
    expect(completion.choices[0]).toMatchObject({
      message: { function_call: { name: "f", arguments: "{}" } },
      finish_reason: "function_call",
    });
    expect(completion.choices[0]!.message).not.toHaveProperty("tool_calls");
    const chunk = renderChunk(
      {
        id: "c",
        created: 1,
        model: "m",
        choices: [{ index: 0, delta: { toolCalls: [{ index: 0, arguments: "{" }] } }],
      },
      false,
      true,
    );
    expect(chunk.choices[0]!.delta).toEqual({ function_call: { arguments: "{" } });
  });
});
