import type { CatalogueModel } from "@gateway/catalogue";
import type { ChatCompletion } from "@gateway/proto/router/v1/chat";
import type { CompletionRequest } from "@gateway/proto/router/v1/completions";
import { describe, expect, it } from "vitest";
import { chatRequestsFor, checkCompletionRequest, TextChunkMapper, textChoicesOf } from "./completion-shape.js";

const request = (overrides: Partial<CompletionRequest> = {}): CompletionRequest => ({
  caller: { requestId: "r", accountId: "a", keyId: "k", modelGroup: "default", multiplierBasisPoints: 10_000 },
  model: "gpt-4o-mini",
  prompts: ["Once", "Twice"],
  maxTokens: 16,
  n: 2,
  stop: ["\n"],
  echo: false,
  stream: false,
  includeUsage: true,
  extraJson: "",
  ...overrides,
});

const answer = (texts: string[]): ChatCompletion => ({
  id: "c",
  created: 1,
  model: "m",
  choices: texts.map((content, index) => ({
    index,
    message: { content, toolCalls: [], thinkingBlocks: [] },
    finishReason: "stop",
  })),
  usage: undefined,
});

describe("text completions through chat", () => {
  it("makes one user message per prompt with the sampling fields and no usage chunk of its own", () => {
    const chats = chatRequestsFor(request({ temperature: 0.5 }));
    expect(chats).toHaveLength(2);
    expect(chats[1]).toMatchObject({
      messages: [{ role: "user", text: "Twice" }],
      maxTokens: 16,
      n: 2,
      stop: ["\n"],
      temperature: 0.5,
      includeUsage: false,
    });
  });

  it("numbers choices prompt by prompt and echoes the prompt when asked", () => {
    expect(textChoicesOf(answer(["a", "b"]), 1, request()).map((choice) => [choice.index, choice.text])).toEqual([
      [2, "a"],
      [3, "b"],
    ]);
    expect(textChoicesOf(answer([" there"]), 0, request({ echo: true, n: 1 }))[0]!.text).toBe("Once there");
  });

  it("maps stream chunks, echoing once per choice and dropping empty pieces", () => {
    const mapper = new TextChunkMapper(request({ echo: true }), 1);
    const chunk = (index: number, content?: string, finishReason?: string) => ({
      id: "c",
      created: 1,
      model: "m",
      choices: [{ index, delta: { content, toolCalls: [] }, finishReason }],
    });
    expect(mapper.map(chunk(0, "A"))).toEqual([{ index: 2, text: "TwiceA", finishReason: "" }]);
    expect(mapper.map(chunk(0, "B"))).toEqual([{ index: 2, text: "B", finishReason: "" }]);
    expect(mapper.map(chunk(0, ""))).toEqual([]);
    expect(mapper.map(chunk(1, undefined, "stop"))).toEqual([{ index: 3, text: "Twice", finishReason: "stop" }]);
  });

  it("refuses suffix, which no chat-served model can honour", () => {
    const model = { id: "gpt-4o-mini" } as CatalogueModel;
    expect(() => checkCompletionRequest(request({ suffix: "end" }), model)).toThrow(/suffix/);
    expect(() => checkCompletionRequest(request({ suffix: "" }), model)).not.toThrow();
  });
});
