import type { ChatChunk } from "@gateway/proto/router/v1/chat";
import { describe, expect, it } from "vitest";
import { geminiStreamFrames } from "./gemini-stream-frames.js";

const chunk = (choices: ChatChunk["choices"], usage?: ChatChunk["usage"]): ChatChunk => ({
  id: "resp-1",
  created: 0,
  model: "m",
  choices,
  usage,
});

const usage = { promptTokens: 7, completionTokens: 9, totalTokens: 16, reasoningTokens: 4 };

function run(sse: boolean, includeThoughts: boolean): string {
  const frames = geminiStreamFrames({ sse, includeThoughts });
  const head = frames.open(undefined);
  let text = "body" in head && head.body ? head.body : "";
  text += frames.chunk(chunk([{ index: 0, delta: { role: "assistant", reasoningContent: "hmm", toolCalls: [] } }]));
  text += frames.chunk(chunk([{ index: 0, delta: { content: "Hello", toolCalls: [] } }]));
  text += frames.chunk(
    chunk([{ index: 0, delta: { toolCalls: [{ index: 0, id: "call_0", name: "weather", arguments: '{"ci' }] } }]),
  );
  text += frames.chunk(
    chunk([{ index: 0, delta: { toolCalls: [{ index: 0, arguments: 'ty":"Oslo"}' }] }, finishReason: "tool_calls" }]),
  );
  text += frames.chunk(chunk([], usage));
  return text + frames.close();
}

describe("Gemini stream frames", () => {
  it("sends text at once, each function call whole, and finishReason with usageMetadata last", () => {
    const events = run(true, false)
      .split("\r\n\r\n")
      .filter(Boolean)
      .map((event) => JSON.parse(event.replace(/^data: /, "")));
    expect(events).toHaveLength(2);
    expect(events[0].candidates).toEqual([{ content: { role: "model", parts: [{ text: "Hello" }] }, index: 0 }]);
    expect(events[1]).toEqual({
      candidates: [
        {
          content: {
            role: "model",
            parts: [{ functionCall: { id: "call_0", name: "weather", args: { city: "Oslo" } } }],
          },
          finishReason: "STOP",
          index: 0,
        },
      ],
      usageMetadata: { promptTokenCount: 7, candidatesTokenCount: 5, totalTokenCount: 16, thoughtsTokenCount: 4 },
      modelVersion: "m",
      responseId: "resp-1",
    });
  });

  it("writes one JSON array without alt=sse, thoughts included when asked", () => {
    const events = JSON.parse(run(false, true));
    expect(events).toHaveLength(3);
    expect(events[0].candidates[0].content.parts).toEqual([{ text: "hmm", thought: true }]);
    expect(events[2].usageMetadata.totalTokenCount).toBe(16);
  });

  it("puts thoughtSignatures back on their call, and on the text part, an empty one when it comes alone", () => {
    const frames = geminiStreamFrames({ sse: true, includeThoughts: false });
    const call = { index: 0, id: "call_0", name: "f", arguments: "{}", thoughtSignature: "sigCall" };
    const text = [
      frames.chunk(chunk([{ index: 0, delta: { content: "Hi", toolCalls: [], thoughtSignature: "sigA" } }])),
      frames.chunk(chunk([{ index: 0, delta: { toolCalls: [], thoughtSignature: "sigB" } }])),
      frames.chunk(chunk([{ index: 1, delta: { toolCalls: [call] }, finishReason: "tool_calls" }], usage)),
      frames.close(),
    ].join("");
    const parts = text
      .split("\r\n\r\n")
      .filter(Boolean)
      .flatMap((event) => JSON.parse(event.replace(/^data: /, "")).candidates)
      .map((candidate: { content: { parts: unknown[] } }) => candidate.content.parts);
    expect(parts).toEqual([
      [{ text: "Hi", thoughtSignature: "sigA" }],
      [{ text: "", thoughtSignature: "sigB" }],
      [{ functionCall: { id: "call_0", name: "f", args: {} }, thoughtSignature: "sigCall" }],
    ]);
  });

  it.each([true, false])(
    "closes Claude's streamed thinking with its signature on a thought part (shown: %s)",
    (shown) => {
      const frames = geminiStreamFrames({ sse: true, includeThoughts: shown });
      frames.open(undefined);
      const text = [
        chunk([{ index: 0, delta: { role: "assistant", reasoningContent: "Let me ", toolCalls: [] } }]),
        chunk([{ index: 0, delta: { reasoningContent: "think.", toolCalls: [] } }]),
        chunk([{ index: 0, delta: { reasoningSignature: "sig-1", toolCalls: [] } }]),
        chunk([{ index: 0, delta: { redactedThinking: "opaque", toolCalls: [] } }]),
        chunk([{ index: 0, delta: { content: "Done.", toolCalls: [] }, finishReason: "stop" }]),
      ]
        .map((piece) => frames.chunk(piece))
        .join("");
      const parts = (text + frames.close())
        .split("\r\n\r\n")
        .filter(Boolean)
        .flatMap((event) => JSON.parse(event.replace(/^data: /, "")).candidates[0]?.content.parts ?? []);
      const closing = shown
        ? [
            { text: "Let me ", thought: true },
            { text: "think.", thought: true },
            { text: "", thought: true, thoughtSignature: "sig-1" },
          ]
        : [{ text: "", thought: true, thoughtSignature: expect.stringMatching(/^claude-thinking:/) }];
      expect(parts).toEqual([
        ...closing,
        { text: "", thought: true, thoughtSignature: "claude-redacted-thinking:opaque" },
        { text: "Done." },
      ]);
    },
  );
});
