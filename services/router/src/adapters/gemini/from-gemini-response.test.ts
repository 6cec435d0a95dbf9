import type { ChatChunk } from "@gateway/proto/router/v1/chat";
import { describe, expect, it } from "vitest";
import { fromGeminiResponse, GeminiStreamMapper, toFinishReason, toUsage } from "./from-gemini-response.js";

/** Calls Gemini gave no id: a random one each, unique across the turns of a conversation. */
const generatedId = expect.stringMatching(/^call_[0-9a-f]{24}$/);

// Shapes as the Gemini API sends them (v1beta generateContent / streamGenerateContent?alt=sse).
const textResponse = {
  candidates: [
    {
      content: { parts: [{ text: "The capital of France is " }, { text: "Paris." }], role: "model" },
      finishReason: "STOP",
      index: 0,
      safetyRatings: [{ category: "HARM_CATEGORY_HARASSMENT", probability: "NEGLIGIBLE" }],
    },
  ],
  usageMetadata: {
    promptTokenCount: 8,
    candidatesTokenCount: 7,
    totalTokenCount: 45,
    thoughtsTokenCount: 30,
    cachedContentTokenCount: 4,
    promptTokensDetails: [{ modality: "TEXT", tokenCount: 8 }],
  },
  modelVersion: "gemini-2.5-flash",
  responseId: "mXAnaOe3LoKenvgP0pyI4QM",
};

const callResponse = {
  candidates: [
    {
      content: {
        parts: [
          { functionCall: { name: "get_weather", args: { city: "Paris" } } },
          { functionCall: { name: "get_time", args: {} } },
        ],
        role: "model",
      },
      finishReason: "STOP",
      index: 0,
    },
  ],
  usageMetadata: { promptTokenCount: 50, candidatesTokenCount: 12, totalTokenCount: 62 },
  modelVersion: "gemini-2.5-flash",
};

describe("Gemini finish reasons", () => {
  it.each([
    ["STOP", false, "stop"],
    ["STOP", true, "tool_calls"],
    ["MAX_TOKENS", true, "length"],
    ["SAFETY", false, "content_filter"],
    ["RECITATION", false, "content_filter"],
    ["BLOCKLIST", false, "content_filter"],
    ["PROHIBITED_CONTENT", false, "content_filter"],
    ["SPII", false, "content_filter"],
    ["MALFORMED_FUNCTION_CALL", false, "stop"],
    ["OTHER", false, "stop"],
    ["SOMETHING_NEW", false, "stop"],
  ])("maps %s (calls: %s) to %s", (reason, called, expected) => {
    expect(toFinishReason(reason, called)).toBe(expected);
  });
});

describe("Gemini answers to canonical form", () => {
  it("maps a text answer with thinking and cached tokens in its usage", () => {
    const completion = fromGeminiResponse(textResponse);
    expect(completion).toEqual({
      id: "",
      created: 0,
      model: "gemini-2.5-flash",
      choices: [
        {
          index: 0,
          finishReason: "stop",
          message: {
            content: "The capital of France is Paris.",
            reasoningContent: undefined,
            toolCalls: [],
            thinkingBlocks: [],
          },
        },
      ],
      usage: { promptTokens: 8, completionTokens: 37, totalTokens: 45, cachedTokens: 4, reasoningTokens: 30 },
    });
  });

  it("counts tool-use prompt tokens as prompt tokens", () => {
    expect(toUsage({ promptTokenCount: 10, candidatesTokenCount: 2, toolUsePromptTokenCount: 5 })).toEqual({
      promptTokens: 15,
      completionTokens: 2,
      totalTokens: 17,
      cachedTokens: undefined,
      reasoningTokens: undefined,
    });
  });

  it("turns functionCall parts into tool calls with generated ids and JSON arguments", () => {
    const choice = fromGeminiResponse(callResponse).choices[0]!;
    expect(choice.finishReason).toBe("tool_calls");
    expect(choice.message).toEqual({
      content: undefined,
      reasoningContent: undefined,
      toolCalls: [
        { id: generatedId, name: "get_weather", arguments: '{"city":"Paris"}' },
        { id: generatedId, name: "get_time", arguments: "{}" },
      ],
      thinkingBlocks: [],
    });
  });

  it("gives every call an id of its own across answers, and keeps the id Gemini gave", () => {
    const ids = [callResponse, callResponse].flatMap((response) =>
      fromGeminiResponse(response).choices[0]!.message!.toolCalls.map((call) => call.id),
    );
    expect(new Set(ids).size).toBe(4);
    const [streamed] = mapStream([callResponse]);
    expect(ids).not.toContain(streamed!.choices[0]!.delta!.toolCalls[0]!.id);
    const own = fromGeminiResponse({
      candidates: [{ content: { parts: [{ functionCall: { id: "x7k2", name: "f", args: {} } }], role: "model" } }],
    });
    expect(own.choices[0]!.message!.toolCalls[0]!.id).toBe("x7k2");
  });

  it("keeps Gemini 3's thoughtSignatures: on the first of parallel calls, and on the text part", () => {
    const signed = fromGeminiResponse({
      candidates: [
        {
          content: {
            parts: [
              { functionCall: { name: "get_weather", args: { city: "Paris" } }, thoughtSignature: "CiQB+sig/A==" },
              { functionCall: { name: "get_time", args: {} } },
            ],
            role: "model",
          },
          finishReason: "STOP",
        },
        {
          content: { parts: [{ text: "It is " }, { text: "sunny.", thoughtSignature: "CiQB+sig/T==" }], role: "model" },
          finishReason: "STOP",
          index: 1,
        },
      ],
    });
    expect(signed.choices[0]!.message!.toolCalls).toEqual([
      { id: generatedId, name: "get_weather", arguments: '{"city":"Paris"}', thoughtSignature: "CiQB+sig/A==" },
      { id: generatedId, name: "get_time", arguments: "{}", thoughtSignature: undefined },
    ]);
    expect(signed.choices[0]!.message!.thoughtSignature).toBeUndefined();
    expect(signed.choices[1]!.message).toMatchObject({ content: "It is sunny.", thoughtSignature: "CiQB+sig/T==" });
  });

  it("maps several candidates to choices by index, and MAX_TOKENS with no parts to length", () => {
    const completion = fromGeminiResponse({
      candidates: [
        { content: { parts: [{ text: "one" }], role: "model" }, finishReason: "STOP", index: 0 },
        { content: { role: "model" }, finishReason: "MAX_TOKENS", index: 1 },
      ],
    });
    expect(completion.choices.map((choice) => [choice.index, choice.finishReason, choice.message?.content])).toEqual([
      [0, "stop", "one"],
      [1, "length", ""],
    ]);
    expect(completion.usage).toBeUndefined();
  });

  it("reports a blocked prompt as content_filter", () => {
    const completion = fromGeminiResponse({
      promptFeedback: { blockReason: "PROHIBITED_CONTENT" },
      usageMetadata: { promptTokenCount: 9, totalTokenCount: 9 },
    });
    expect(completion.choices).toEqual([
      {
        index: 0,
        finishReason: "content_filter",
        message: { content: "", reasoningContent: undefined, toolCalls: [], thinkingBlocks: [] },
      },
    ]);
    expect(completion.usage).toMatchObject({ promptTokens: 9, completionTokens: 0 });
  });

  it("refuses a malformed answer with a retryable error", () => {
    expect(() => fromGeminiResponse({ candidates: "nope" })).toThrow(expect.objectContaining({ httpStatus: 503 }));
  });
});

function mapStream(events: unknown[]): ChatChunk[] {
  const mapper = new GeminiStreamMapper();
  const chunks = events.map((event) => mapper.map(event)).filter((chunk) => chunk !== undefined);
  const usage = mapper.finish();
  return usage ? [...chunks, usage] : chunks;
}

describe("Gemini streams to canonical chunks", () => {
  it("maps text pieces, the finish and the last usage, the first chunk naming the role", () => {
    const chunks = mapStream([
      {
        candidates: [{ content: { parts: [{ text: "The capital" }], role: "model" }, index: 0 }],
        usageMetadata: { promptTokenCount: 8, totalTokenCount: 8 },
        modelVersion: "gemini-2.5-flash",
        responseId: "r1",
      },
      {
        candidates: [{ content: { parts: [{ text: " of France is" }], role: "model" }, index: 0 }],
        usageMetadata: { promptTokenCount: 8, totalTokenCount: 8 },
        modelVersion: "gemini-2.5-flash",
      },
      {
        candidates: [{ content: { parts: [{ text: " Paris." }], role: "model" }, finishReason: "STOP", index: 0 }],
        usageMetadata: { promptTokenCount: 8, candidatesTokenCount: 7, totalTokenCount: 15 },
        modelVersion: "gemini-2.5-flash",
      },
    ]);
    expect(chunks.map((chunk) => chunk.choices[0]?.delta)).toEqual([
      { role: "assistant", content: "The capital", reasoningContent: undefined, toolCalls: [] },
      { role: undefined, content: " of France is", reasoningContent: undefined, toolCalls: [] },
      { role: undefined, content: " Paris.", reasoningContent: undefined, toolCalls: [] },
      undefined,
    ]);
    expect(chunks.map((chunk) => chunk.choices[0]?.finishReason)).toEqual([undefined, undefined, "stop", undefined]);
    expect(chunks.at(-1)).toEqual({
      id: "",
      created: 0,
      model: "gemini-2.5-flash",
      choices: [],
      usage: {
        promptTokens: 8,
        completionTokens: 7,
        totalTokens: 15,
        cachedTokens: undefined,
        reasoningTokens: undefined,
      },
    });
  });

  it("sends each function call as one complete fragment, indexed per candidate", () => {
    const chunks = mapStream([
      {
        candidates: [
          { content: { parts: [{ functionCall: { name: "get_weather", args: { city: "Paris" } } }], role: "model" } },
        ],
      },
      {
        candidates: [
          {
            content: { parts: [{ functionCall: { name: "get_time", args: {} } }], role: "model" },
            finishReason: "STOP",
          },
        ],
        usageMetadata: { promptTokenCount: 50, candidatesTokenCount: 12, totalTokenCount: 62 },
      },
    ]);
    expect(chunks[0]!.choices[0]!.delta).toMatchObject({
      role: "assistant",
      toolCalls: [{ index: 0, id: generatedId, name: "get_weather", arguments: '{"city":"Paris"}' }],
    });
    expect(chunks[1]!.choices[0]).toMatchObject({
      finishReason: "tool_calls",
      delta: { toolCalls: [{ index: 1, id: generatedId, name: "get_time", arguments: "{}" }] },
    });
    expect(chunks[2]!.usage).toMatchObject({ promptTokens: 50, completionTokens: 12 });
  });

  it("streams a call's thoughtSignature with its fragment, and a text signature from an empty closing part", () => {
    const chunks = mapStream([
      {
        candidates: [
          {
            content: { parts: [{ functionCall: { name: "f", args: {} }, thoughtSignature: "sigCall" }], role: "model" },
            index: 0,
          },
          { content: { parts: [{ text: "Hello" }], role: "model" }, index: 1 },
        ],
      },
      {
        candidates: [{ content: { parts: [{ text: "", thoughtSignature: "sigText" }], role: "model" }, index: 1 }],
      },
    ]);
    expect(chunks[0]!.choices[0]!.delta!.toolCalls).toEqual([
      { index: 0, id: generatedId, name: "f", arguments: "{}", thoughtSignature: "sigCall" },
    ]);
    expect(chunks[0]!.choices[1]!.delta!.thoughtSignature).toBeUndefined();
    expect(chunks[1]!.choices).toEqual([
      {
        index: 1,
        finishReason: undefined,
        delta: {
          role: undefined,
          content: undefined,
          reasoningContent: undefined,
          toolCalls: [],
          thoughtSignature: "sigText",
        },
      },
    ]);
  });

  it("keeps candidates apart and skips events with nothing new", () => {
    const chunks = mapStream([
      {
        candidates: [
          { content: { parts: [{ text: "a" }], role: "model" }, index: 0 },
          { content: { parts: [{ functionCall: { name: "f", args: {} } }], role: "model" }, index: 1 },
        ],
      },
      { candidates: [{ content: { parts: [{ text: "" }], role: "model" }, index: 0 }] },
      {
        candidates: [
          { content: { parts: [], role: "model" }, finishReason: "MAX_TOKENS", index: 0 },
          { content: { parts: [{ functionCall: { name: "g", args: { x: 1 } } }], role: "model" }, index: 1 },
        ],
      },
    ]);
    expect(chunks).toHaveLength(2);
    expect(chunks[0]!.choices.map((choice) => choice.delta!.role)).toEqual(["assistant", "assistant"]);
    expect(chunks[1]!.choices[0]).toMatchObject({ index: 0, finishReason: "length" });
    expect(chunks[1]!.choices[1]!.delta!.toolCalls).toEqual([
      { index: 1, id: generatedId, name: "g", arguments: '{"x":1}' },
    ]);
  });

  it("ends a blocked prompt with content_filter", () => {
    const chunks = mapStream([{ promptFeedback: { blockReason: "SAFETY" }, usageMetadata: { promptTokenCount: 3 } }]);
    expect(chunks[0]!.choices).toEqual([
      { index: 0, finishReason: "content_filter", delta: { role: "assistant", toolCalls: [] } },
    ]);
    expect(chunks[1]!.usage).toMatchObject({ promptTokens: 3 });
  });
});
