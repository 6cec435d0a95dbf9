import type { ChunkChoice } from "@gateway/proto/router/v1/chat";
import { describe, expect, it } from "vitest";
import { StreamAnswer } from "./stream-answer.js";

const text = (index: number, content: string, finishReason?: string): ChunkChoice => ({
  index,
  delta: { content, toolCalls: [] },
  finishReason,
});

describe("StreamAnswer", () => {
  it("joins each choice's text and tool-call fragments in index order", () => {
    const answer = new StreamAnswer(1_000);
    answer.add([text(1, "Bon"), text(0, "Hel")]);
    answer.add([text(0, "lo", "stop"), text(1, "jour", "stop")]);
    const toolCall = (index: number, fragment: { id?: string; name?: string; arguments?: string }) => ({
      index: 2,
      delta: { toolCalls: [{ index, ...fragment }] },
    });
    answer.add([toolCall(0, { id: "call_1", name: "get_weather", arguments: '{"ci' })]);
    answer.add([toolCall(1, { id: "call_2", name: "get_time", arguments: "{}" })]);
    answer.add([
      toolCall(0, { arguments: 'ty":"Paris"}' }),
      { index: 2, delta: undefined, finishReason: "tool_calls" },
    ]);
    expect(answer.toLog()).toEqual({
      choices: [
        { index: 0, content: "Hello", finish_reason: "stop" },
        { index: 1, content: "Bonjour", finish_reason: "stop" },
        {
          index: 2,
          content: null,
          tool_calls: [
            { id: "call_1", name: "get_weather", arguments: '{"city":"Paris"}' },
            { id: "call_2", name: "get_time", arguments: "{}" },
          ],
          finish_reason: "tool_calls",
        },
      ],
    });
    expect(answer.truncated).toBe(false);
  });

  it("collects a choice's reasoning beside its text", () => {
    const answer = new StreamAnswer(1_000);
    answer.add([{ index: 0, delta: { reasoningContent: "Thinking ", toolCalls: [] } }]);
    answer.add([{ index: 0, delta: { reasoningContent: "hard.", toolCalls: [] } }, text(0, "Done", "stop")]);
    expect(answer.toLog()).toEqual({
      choices: [{ index: 0, content: "Done", reasoning_content: "Thinking hard.", finish_reason: "stop" }],
    });
  });

  it("collects text-completion pieces the same way", () => {
    const answer = new StreamAnswer(1_000);
    answer.add([{ index: 0, text: "Once upon", finishReason: "" }]);
    answer.add([{ index: 0, text: " a time", finishReason: "length" }]);
    expect(answer.toLog()).toEqual({ choices: [{ index: 0, content: "Once upon a time", finish_reason: "length" }] });
  });

  it("stops collecting at the byte cap and says so", () => {
    const answer = new StreamAnswer(10);
    for (let i = 0; i < 1_000; i += 1) answer.add([text(0, "abcd")]);
    expect(answer.toLog().choices[0]!.content).toBe("abcdabcd");
    expect(answer.truncated).toBe(true);
  });

  it("collects nothing with no budget (the request is not logged in full)", () => {
    const answer = new StreamAnswer(0);
    answer.add([text(0, "Hello", "stop")]);
    expect(answer.toLog()).toEqual({ choices: [] });
    expect(answer.truncated).toBe(false);
  });
});
