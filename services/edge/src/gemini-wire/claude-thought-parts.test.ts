import type { Caller } from "@gateway/proto/common/v1/common";
import type { ChatCompletion } from "@gateway/proto/router/v1/chat";
import { describe, expect, it } from "vitest";
import { type GenerateContentBody, generateContentSchema } from "./gemini-request-schema.js";
import { renderGenerateContent } from "./render-gemini.js";
import { toCanonicalGemini } from "./to-canonical-gemini.js";

const caller = { requestId: "r", modelGroup: "default" } as Caller;
const blocks = [
  { thinking: "Let me check the weather.", signature: "EqQBCkYIARgCKkC+sig/==" },
  { thinking: "", redactedData: "EmwKAhgBEgy3va3pzix/LafPsn4a" },
];

function claudeAnswer(): ChatCompletion {
  return {
    id: "msg_1",
    created: 0,
    model: "claude-sonnet-4-5",
    choices: [
      {
        index: 0,
        finishReason: "tool_calls",
        message: {
          reasoningContent: "Let me check the weather.",
          thinkingBlocks: blocks,
          toolCalls: [{ id: "toolu_1", name: "weather", arguments: '{"city":"Oslo"}' }],
        },
      },
    ],
    usage: undefined,
  };
}

/** The answer's model turn sent back as a Gemini client does, with a result for its call. */
function sentBack(includeThoughts: boolean) {
  const turn = renderGenerateContent(claudeAnswer(), includeThoughts).candidates[0]!.content;
  const body = generateContentSchema.parse({
    contents: [
      { role: "user", parts: [{ text: "weather?" }] },
      turn,
      { role: "user", parts: [{ functionResponse: { id: "toolu_1", name: "weather", response: { t: 3 } } }] },
    ],
  }) as GenerateContentBody;
  return { turn, assistant: toCanonicalGemini(body, "claude-sonnet-4-5", caller, false).messages[1]! };
}

describe("Claude's thinking on the Gemini API", () => {
  it("shows signed thinking as a thought part with Claude's signature, redacted thinking as an opaque one", () => {
    const { turn } = sentBack(true);
    expect(turn.parts).toEqual([
      { text: "Let me check the weather.", thought: true, thoughtSignature: "EqQBCkYIARgCKkC+sig/==" },
      { text: "", thought: true, thoughtSignature: "claude-redacted-thinking:EmwKAhgBEgy3va3pzix/LafPsn4a" },
      { functionCall: { id: "toolu_1", name: "weather", args: { city: "Oslo" } } },
    ]);
  });

  it("hides the thinking text when thoughts were not asked for, inside the signature Claude needs back", () => {
    const { turn } = sentBack(false);
    const [hidden] = turn.parts;
    expect(hidden).toMatchObject({ text: "", thought: true });
    expect(JSON.stringify(turn)).not.toContain("Let me check the weather.");
  });

  it.each([true, false])("takes the blocks back first in the assistant turn, as written (shown: %s)", (shown) => {
    const { assistant } = sentBack(shown);
    expect(assistant.parts.map((part) => part.thinking)).toEqual(blocks);
    expect(assistant.toolCalls).toMatchObject([{ id: "toolu_1", name: "weather" }]);
  });

  it("joins a streamed thought's pieces into the block its signed closing part ends", () => {
    const body = generateContentSchema.parse({
      contents: [
        { role: "user", parts: [{ text: "q" }] },
        {
          role: "model",
          parts: [
            { text: "Let me ", thought: true },
            { text: "think.", thought: true },
            { text: "", thought: true, thoughtSignature: "sig-1" },
            { text: "Done." },
          ],
        },
      ],
    }) as GenerateContentBody;
    const assistant = toCanonicalGemini(body, "claude-sonnet-4-5", caller, false).messages[1]!;
    expect(assistant.parts).toEqual([
      { thinking: { thinking: "Let me think.", signature: "sig-1" } },
      { text: "Done." },
    ]);
    expect(assistant.reasoningContent).toBe("Let me think.");
  });

  it("refuses a hidden-thinking signature it did not give", () => {
    const body = generateContentSchema.parse({
      contents: [
        { role: "model", parts: [{ text: "", thought: true, thoughtSignature: "claude-thinking:bm90LWpzb24" }] },
      ],
    }) as GenerateContentBody;
    expect(() => toCanonicalGemini(body, "m", caller, false)).toThrow(/not one this API gave/);
  });
});
