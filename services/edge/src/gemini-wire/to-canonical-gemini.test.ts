import type { Caller } from "@gateway/proto/common/v1/common";
import { describe, expect, it } from "vitest";
import { type GenerateContentBody, generateContentSchema } from "./gemini-request-schema.js";
import { toCanonicalGemini } from "./to-canonical-gemini.js";

const caller = { requestId: "r", modelGroup: "default" } as Caller;
const canonical = (body: unknown) =>
  toCanonicalGemini(generateContentSchema.parse(body) as GenerateContentBody, "m", caller, false);

describe("Gemini requests in the canonical form", () => {
  it("pairs function responses with the calls they answer, by id or else by name in order", () => {
    const request = canonical({
      contents: [
        { role: "user", parts: [{ text: "weather twice" }] },
        {
          role: "model",
          parts: [
            { functionCall: { name: "weather", args: { city: "Oslo" } } },
            { functionCall: { name: "weather", args: { city: "Rome" } } },
            { functionCall: { id: "own", name: "time", args: {} } },
          ],
        },
        {
          role: "user",
          parts: [
            { functionResponse: { id: "own", name: "time", response: { now: "noon" } } },
            { functionResponse: { name: "weather", response: { result: "cold" } } },
            { functionResponse: { name: "weather", response: { result: "warm" } } },
          ],
        },
      ],
    });
    const [, assistant, time, oslo, rome] = request.messages;
    expect(assistant!.toolCalls.map((call) => call.id)).toEqual(["call_0", "call_1", "own"]);
    expect(assistant!.toolCalls[0]!.arguments).toBe('{"city":"Oslo"}');
    expect([time, oslo, rome].map((message) => message!.toolCallId)).toEqual(["own", "call_0", "call_1"]);
    expect(oslo).toMatchObject({ role: "tool", name: "weather", text: '{"result":"cold"}' });
  });

  it("pairs each turn's results with that turn's calls, whether the calls carry the gateway's ids or none", () => {
    const turn = (id: string | undefined, result: string) => [
      { role: "model", parts: [{ functionCall: { id, name: "weather", args: {} } }] },
      { role: "user", parts: [{ functionResponse: { id, name: "weather", response: { result } } }] },
    ];
    for (const ids of [
      ["call_3f9a", "call_77c1"],
      [undefined, undefined],
    ]) {
      const request = canonical({
        contents: [{ role: "user", parts: [{ text: "q" }] }, ...turn(ids[0], "cold"), ...turn(ids[1], "warm")],
      });
      const [, first, cold, second, warm] = request.messages;
      expect(first!.toolCalls[0]!.id).not.toBe(second!.toolCalls[0]!.id);
      expect([cold!.toolCallId, warm!.toolCallId]).toEqual([first!.toolCalls[0]!.id, second!.toolCalls[0]!.id]);
    }
  });

  it("keeps the thoughtSignatures of a model turn's calls and text for the Gemini adapter", () => {
    const request = canonical({
      contents: [
        { role: "user", parts: [{ text: "weather" }] },
        {
          role: "model",
          parts: [
            { text: "Looking" },
            { text: "", thoughtSignature: "sigText" },
            { functionCall: { name: "weather", args: {} }, thoughtSignature: "sigCall" },
            { functionCall: { name: "time", args: {} } },
          ],
        },
      ],
    });
    expect(request.messages[1]).toMatchObject({
      text: "Looking",
      thoughtSignature: "sigText",
      toolCalls: [
        { id: "call_0", name: "weather", thoughtSignature: "sigCall" },
        { id: "call_1", name: "time", thoughtSignature: undefined },
      ],
    });
  });

  it("skips calls already answered by id when a response without one takes the oldest open call", () => {
    const calls = ["a", "b", "c"].map((id) => ({ functionCall: { id, name: "f", args: {} } }));
    const answer = (id?: string) => ({ functionResponse: { ...(id && { id }), name: "f", response: {} } });
    const request = canonical({
      contents: [
        { role: "user", parts: [{ text: "go" }] },
        { role: "model", parts: calls },
        { role: "user", parts: [answer("a"), answer("c"), answer()] },
      ],
    });
    expect(request.messages.slice(2, 5).map((message) => message.toolCallId)).toEqual(["a", "c", "b"]);
    // A fourth names an id already answered and finds no call open of that name.
    expect(() =>
      canonical({
        contents: [
          { role: "model", parts: calls },
          { role: "user", parts: [answer("a"), answer("c"), answer(), answer("a")] },
        ],
      }),
    ).toThrow(/answers no functionCall/);
  });

  it("refuses a function response that answers no call", () => {
    expect(() =>
      canonical({ contents: [{ parts: [{ functionResponse: { name: "weather", response: {} } }] }] }),
    ).toThrow(/answers no functionCall/);
  });

  it("narrows the tools to several allowed names and requires a call", () => {
    const request = canonical({
      contents: [{ parts: [{ text: "hi" }] }],
      tools: [{ functionDeclarations: [{ name: "a" }, { name: "b" }, { name: "c" }] }],
      toolConfig: { functionCallingConfig: { mode: "ANY", allowedFunctionNames: ["a", "c"] } },
    });
    expect(request.tools.map((tool) => tool.name)).toEqual(["a", "c"]);
    expect(request.toolChoice).toEqual({ mode: "required" });
  });

  it("turns Gemini's Schema into JSON Schema for tools and structured output", () => {
    const schema = {
      type: "OBJECT",
      properties: { city: { type: "STRING", nullable: true }, days: { type: "ARRAY", items: { type: "INTEGER" } } },
      propertyOrdering: ["city", "days"],
    };
    const request = canonical({
      contents: [{ parts: [{ text: "hi" }] }],
      tools: [{ functionDeclarations: [{ name: "plan", parameters: schema }] }],
      generationConfig: { responseMimeType: "application/json", responseSchema: schema },
    });
    const expected = {
      type: "object",
      properties: { city: { type: ["string", "null"] }, days: { type: "array", items: { type: "integer" } } },
    };
    expect(JSON.parse(request.tools[0]!.parametersJson!)).toEqual(expected);
    expect(request.responseFormat!.type).toBe("json_schema");
    expect(JSON.parse(request.responseFormat!.jsonSchemaJson!)).toEqual({ name: "response", schema: expected });
  });

  it("keeps model thoughts as reasoning, takes topK and thinkingConfig canonically and passes safety settings to the Gemini adapter", () => {
    const request = canonical({
      contents: [
        { role: "user", parts: [{ text: "q" }] },
        { role: "model", parts: [{ text: "pondering", thought: true }, { text: "answer" }] },
        { role: "user", parts: [{ text: "more" }] },
      ],
      generationConfig: { topK: 20, thinkingConfig: { thinkingBudget: 1024, includeThoughts: true } },
      safetySettings: [{ category: "HARM_CATEGORY_HARASSMENT", threshold: "BLOCK_NONE" }],
    });
    expect(request.messages[1]).toMatchObject({ role: "assistant", text: "answer", reasoningContent: "pondering" });
    expect(request).toMatchObject({ topK: 20, thinking: { type: "enabled", budgetTokens: 1024 } });
    expect(JSON.parse(request.extraJson)).toEqual({
      gemini: { safetySettings: [{ category: "HARM_CATEGORY_HARASSMENT", threshold: "BLOCK_NONE" }] },
    });
  });

  it("takes images inline or by URL and refuses other media", () => {
    const request = canonical({
      contents: [
        {
          parts: [
            { inlineData: { mimeType: "image/png", data: "iVBORw0KGgo=" } },
            { fileData: { mimeType: "image/jpeg", fileUri: "https://example.com/cat.jpg" } },
          ],
        },
      ],
    });
    expect(request.messages[0]!.parts.map((part) => part.imageUrl?.url)).toEqual([
      "data:image/png;base64,iVBORw0KGgo=",
      "https://example.com/cat.jpg",
    ]);
    expect(() =>
      canonical({ contents: [{ parts: [{ inlineData: { mimeType: "audio/wav", data: "AAAA" } }] }] }),
    ).toThrow(/Only image inline data/);
    expect(() => canonical({ contents: [{ parts: [{ fileData: { fileUri: "gs://bucket/cat.png" } }] }] })).toThrow(
      /http\(s\) URL/,
    );
  });
});
