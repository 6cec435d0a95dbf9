import { describe, expect, it } from "vitest";
import {
  type AnswerRequest,
  answer,
  argumentsFromSchema,
  type ConversationMessage,
  countPromptTokens,
  defaultAnswerLength,
  splitPieces,
  tokenize,
} from "./answer.js";

const user = (text: string): ConversationMessage => ({ role: "user", parts: [text], images: 0 });
const request = (overrides: Partial<AnswerRequest> = {}): AnswerRequest => ({
  model: "gpt-4o-mini",
  messages: [user("Tell me about foxes")],
  ...overrides,
});
const weather = {
  name: "get_weather",
  parameters: {
    type: "object",
    properties: { city: { type: "string" }, days: { type: "integer" }, unit: { type: "string", enum: ["c", "f"] } },
  },
};
const clock = { name: "get_time", parameters: { type: "object", properties: { zone: { type: "string" } } } };

describe("text answers", () => {
  it("gives the same answer to the same request", () => {
    expect(answer(request())).toEqual(answer(request()));
  });

  it("answers differently when the question differs", () => {
    const first = answer(request()).tokens.join("");
    const second = answer(request({ messages: [user("Tell me about owls")] })).tokens.join("");
    expect(first).not.toBe(second);
  });

  it("names the model, echoes the question and pads to the default length", () => {
    const result = answer(request());
    expect(result.tokens).toHaveLength(defaultAnswerLength);
    expect(result.tokens.join("")).toMatch(/^Simulated answer from gpt-4o-mini: Tell me about foxes \w/);
    expect(result.finishReason).toBe("stop");
    expect(result.completionTokens).toBe(defaultAnswerLength);
  });

  it("makes every token a word with its trailing space", () => {
    const tokens = answer(request()).tokens;
    expect(tokens.slice(0, -1).every((token) => /^\S+ $/.test(token))).toBe(true);
    expect(tokens.at(-1)).toMatch(/^\S+$/);
  });

  it("caps the answer at max tokens with finish reason length", () => {
    const result = answer(request({ maxTokens: 5 }));
    expect(result.tokens).toHaveLength(5);
    expect(result.finishReason).toBe("length");
  });

  it("cuts the answer before the earliest stop string", () => {
    const result = answer(request({ stop: ["foxes", "about"] }));
    expect(result.tokens.join("")).toBe("Simulated answer from gpt-4o-mini: Tell me ");
    expect(result.finishReason).toBe("stop");
    expect(result.completionTokens).toBe(6);
  });

  it("prefers the token cap when the stop string lies beyond it", () => {
    const result = answer(request({ stop: ["foxes"], maxTokens: 3 }));
    expect(result.tokens.join("")).toBe("Simulated answer from ");
    expect(result.finishReason).toBe("length");
  });

  it("answers in the requested length and leaves directives out of the text", () => {
    const result = answer(request({ messages: [user("Hi [sim:tokens=8] there")], length: 8 }));
    expect(result.tokens.join("")).toMatch(/^Simulated answer from gpt-4o-mini: Hi there \w+ \w+$/);
  });

  it("acknowledges a tool result when the last message is one", () => {
    const messages = [user("weather?"), { role: "tool", parts: ['{"temperature": 21, "sky": "clear"}'], images: 0 }];
    const result = answer(request({ messages, tools: [weather] }));
    expect(result.toolCalls).toEqual([]);
    expect(result.tokens.join("")).toMatch(/^Received tool result: \{"temperature": 21, "sky": "clear"\} /);
  });

  it("lets reasoner models think before answering", () => {
    const result = answer(request({ model: "deepseek-reasoner" }));
    expect(result.reasoning.join("")).toContain("Tell me about foxes");
    expect(result.completionTokens).toBe(result.reasoning.length + result.tokens.length);
    expect(answer(request()).reasoning).toEqual([]);
  });

  it("gives each alternative choice its own answer", () => {
    expect(answer(request({ choice: 1 })).tokens).not.toEqual(answer(request({ choice: 0 })).tokens);
  });
});

describe("tool calls", () => {
  it("builds arguments from the JSON schema of the tool", () => {
    const schema = {
      type: "object",
      properties: {
        city: { type: "string" },
        count: { type: "integer" },
        ratio: { type: "number" },
        exact: { type: "boolean" },
        tags: { type: "array", items: { type: "string" } },
        options: { type: "object" },
        unit: { type: "string", enum: ["celsius", "fahrenheit"] },
        note: { type: ["string", "null"] },
      },
    };
    expect(argumentsFromSchema(schema)).toEqual({
      city: "sample-city",
      count: 1,
      ratio: 1,
      exact: true,
      tags: [],
      options: {},
      unit: "celsius",
      note: "sample-note",
    });
    expect(argumentsFromSchema(undefined)).toEqual({});
  });

  it("calls every tool, at most three, when parallel calls are allowed", () => {
    const tools = [weather, clock, { name: "c" }, { name: "d" }];
    const result = answer(request({ tools }));
    expect(result.toolCalls.map((call) => call.name)).toEqual(["get_weather", "get_time", "c"]);
    expect(result.tokens).toEqual([]);
    expect(result.finishReason).toBe("tool_calls");
    expect(JSON.parse(result.toolCalls[0]!.arguments)).toEqual({ city: "sample-city", days: 1, unit: "c" });
  });

  it("calls only the first tool when parallel calls are off", () => {
    const result = answer(request({ tools: [weather, clock], parallelToolCalls: false }));
    expect(result.toolCalls.map((call) => call.name)).toEqual(["get_weather"]);
  });

  it("calls the tool that tool_choice names", () => {
    const result = answer(request({ tools: [weather, clock], toolChoice: { name: "get_time" } }));
    expect(result.toolCalls.map((call) => call.name)).toEqual(["get_time"]);
  });

  it("answers in text when tool_choice is none", () => {
    const result = answer(request({ tools: [weather], toolChoice: "none" }));
    expect(result.toolCalls).toEqual([]);
    expect(result.finishReason).toBe("stop");
  });

  it("calls exactly the tool a [sim:tool] directive names, with the directive's arguments", () => {
    const tools = [weather, clock, { name: "c" }];
    const result = answer(request({ messages: [user('Time? [sim:tool=get_time {"zone":"UTC"}]')], tools }));
    expect(result.toolCalls.map((call) => [call.name, JSON.parse(call.arguments)])).toEqual([
      ["get_time", { zone: "UTC" }],
    ]);
    expect(result.finishReason).toBe("tool_calls");
  });

  it("samples the directed tool's arguments from its schema when the directive gives none", () => {
    const result = answer(request({ messages: [user("[sim:tool=get_weather]")], tools: [clock, weather] }));
    expect(result.toolCalls.map((call) => [call.name, JSON.parse(call.arguments)])).toEqual([
      ["get_weather", { city: "sample-city", days: 1, unit: "c" }],
    ]);
  });

  it("finds the directive in any part of the last user message, however far in", () => {
    const reminder = `<system-reminder>${"context ".repeat(2_000)}</system-reminder>`;
    const message = { role: "user", parts: [reminder, reminder, "Read it [sim:tool=get_time]"], images: 0 };
    const result = answer(request({ messages: [message], tools: [weather, clock] }));
    expect(result.toolCalls.map((call) => call.name)).toEqual(["get_time"]);
  });

  it("calls no tool when the directive names one the request does not offer", () => {
    const result = answer(request({ messages: [user("[sim:tool=rm_rf]")], tools: [weather, clock] }));
    expect(result.toolCalls).toEqual([]);
    expect(result.finishReason).toBe("stop");
  });

  it("answers a directed call's result in text, which ends the tool loop", () => {
    const result = answer(
      request({
        messages: [user("[sim:tool=get_time]"), { role: "tool", parts: ["12:00"], images: 0 }],
        tools: [clock],
      }),
    );
    expect(result.toolCalls).toEqual([]);
    expect(result.tokens.join("")).toMatch(/^Received tool result: 12:00 /);
  });

  it("gives deterministic call ids", () => {
    const ids = answer(request({ tools: [weather, clock] })).toolCalls.map((call) => call.id);
    expect(ids).toEqual(answer(request({ tools: [weather, clock] })).toolCalls.map((call) => call.id));
    expect(ids[0]).toMatch(/^call_[0-9a-f]{8}_0$/);
    expect(ids[1]).toMatch(/^call_[0-9a-f]{8}_1$/);
  });
});

describe("structured output", () => {
  const schema = {
    type: "object",
    properties: { title: { type: "string" }, score: { type: "integer", minimum: 5, maximum: 9 } },
    required: ["title", "score"],
    additionalProperties: false,
  };

  it("answers a JSON text satisfying the schema, in pieces of about a token", () => {
    const result = answer(request({ json: { schema } }));
    const value = JSON.parse(result.tokens.join(""));
    expect(Object.keys(value)).toEqual(["title", "score"]);
    expect(value.title).toBe("sample-title");
    expect(value.score).toBeGreaterThanOrEqual(5);
    expect(value.score).toBeLessThanOrEqual(9);
    expect(result.tokens.length).toBe(Math.ceil(result.tokens.join("").length / 4));
    expect(result.completionTokens).toBe(result.tokens.length);
    expect(result.finishReason).toBe("stop");
  });

  it("wraps the text answer in an object when no schema is given", () => {
    const value = JSON.parse(answer(request({ json: {} })).tokens.join(""));
    expect(value).toEqual({ answer: answer(request()).tokens.join("") });
  });

  it("in JSON mode without a schema, answers the schema the prompt states, as a model told to would", () => {
    // The AI SDK's injectJsonInstruction (@ai-sdk/provider-utils), word for word.
    const system = `Be brief.\n\nJSON schema:\n${JSON.stringify(schema)}\nYou MUST answer with a JSON object that matches the JSON schema above.`;
    const stated = { role: "system", parts: [system], images: 0 };
    const value = JSON.parse(answer(request({ json: {}, messages: [stated, user("Rate foxes")] })).tokens.join(""));
    expect(Object.keys(value)).toEqual(["title", "score"]);
    expect(value.score).toBeGreaterThanOrEqual(5);
  });

  it("cuts the JSON at max tokens, as a vendor does", () => {
    const result = answer(request({ json: { schema }, maxTokens: 2 }));
    expect(result.tokens).toHaveLength(2);
    expect(result.finishReason).toBe("length");
  });

  it("calls a tool with arguments satisfying its schema rather than answering JSON", () => {
    const tool = { name: "rate", parameters: schema };
    const result = answer(request({ json: {}, tools: [tool], toolChoice: { name: "rate" } }));
    expect(result.finishReason).toBe("tool_calls");
    expect(JSON.parse(result.toolCalls[0]!.arguments).score).toBeGreaterThanOrEqual(5);
  });
});

describe("token counting", () => {
  it("counts a quarter token a character over all text parts, plus 85 an image", () => {
    const messages = [
      { role: "system", parts: ["abcdef"], images: 0 },
      { role: "user", parts: ["abc", "defg"], images: 2 },
    ];
    expect(countPromptTokens(messages)).toBe(Math.ceil(13 / 4) + 170);
  });

  it("splits text into tokens and pieces that join back to it", () => {
    expect(tokenize("one two  three")).toEqual(["one ", "two  ", "three"]);
    const text = '{"city":"sample-city"}';
    const pieces = splitPieces(text, 3);
    expect(pieces).toHaveLength(3);
    expect(pieces.join("")).toBe(text);
  });
});
