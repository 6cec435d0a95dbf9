import type { Caller } from "@gateway/proto/common/v1/common";
import { superLinear, tenfoldGrowth } from "@gateway/stack";
import { describe, expect, it } from "vitest";
import type { z } from "zod";
import { messagesRequestSchema } from "./anthropic-wire/messages-request-schema.js";
import { messagesToCanonical } from "./anthropic-wire/to-canonical-messages.js";
import { camelCaseKeys } from "./gemini-wire/camel-case-keys.js";
import { generateContentSchema } from "./gemini-wire/gemini-request-schema.js";
import { toCanonicalGemini } from "./gemini-wire/to-canonical-gemini.js";
import { chatRequestSchema } from "./openai-wire/chat-request-schema.js";
import { responsesRequestSchema } from "./openai-wire/responses-request-schema.js";
import { responsesToChat } from "./openai-wire/responses-to-chat.js";
import { toCanonicalChat } from "./openai-wire/to-canonical-chat.js";
import { validateBody } from "./openai-wire/validate-body.js";

// Every request edge reads is validated and translated in one synchronous run of the event
// loop, so work that grows faster than the request stalls every other tenant's requests.
// Each body here is the worst shape known for its translator, timed at n and 10n items.

const caller = { requestId: "r", modelGroup: "default" } as Caller;
const times = <T>(count: number, item: (index: number) => T) =>
  Array.from({ length: count }, (_, index) => item(index));

interface Case {
  name: string;
  size: number;
  build: (size: number) => unknown;
  work: (body: unknown) => unknown;
}

/**
 * A translator's case: its bodies are validated as the route validates them, outside the
 * timing, and the translation is timed; the validation itself is timed by its own case.
 */
const translator =
  <S extends z.ZodType>(schema: S, translate: (body: z.infer<S>) => unknown) =>
  (name: string, size: number, build: (size: number) => unknown): Case[] => [
    { name, size, build: (count) => validateBody(schema, build(count)), work: (body) => translate(body as z.infer<S>) },
    { name: `${name} (validation)`, size, build, work: (body) => validateBody(schema, body) },
  ];

const chat = translator(chatRequestSchema, (body) => toCanonicalChat(body, caller));
const responses = translator(responsesRequestSchema, (body) => responsesToChat(body, caller, []));
const messages = translator(messagesRequestSchema, (body) => messagesToCanonical(body, caller, []));
const gemini = (name: string, size: number, build: (size: number) => unknown) =>
  translator(generateContentSchema, (body) => toCanonicalGemini(body, "gemini-2.5-flash", caller, false))(
    name,
    size,
    (count) => camelCaseKeys(build(count)),
  );

const cases: Case[] = [
  ...chat("chat: legacy function results answering no earlier call", 10_000, (size) => ({
    model: "m",
    functions: [{ name: "lookup" }],
    messages: [
      { role: "user", content: "go" },
      ...times(size, () => ({ role: "function", name: "lookup", content: "{}" })),
    ],
  })),
  ...chat("chat: legacy function calls, each answered", 10_000, (size) => ({
    model: "m",
    functions: [{ name: "lookup" }],
    messages: [
      { role: "user", content: "go" },
      ...times(size, () => [
        { role: "assistant", content: null, function_call: { name: "lookup", arguments: "{}" } },
        { role: "function", name: "lookup", content: "{}" },
      ]).flat(),
    ],
  })),
  ...chat("chat: parallel tool calls and their results", 10_000, (size) => ({
    model: "m",
    messages: [
      { role: "user", content: "go" },
      {
        role: "assistant",
        content: null,
        tool_calls: times(size, (index) => ({
          id: `c${index}`,
          type: "function",
          function: { name: "f", arguments: "{}" },
        })),
      },
      ...times(size, (index) => ({ role: "tool", tool_call_id: `c${index}`, content: "ok" })),
    ],
  })),
  ...chat("chat: one user message of many parts", 30_000, (size) => ({
    model: "m",
    messages: [{ role: "user", content: times(size, () => ({ type: "text", text: "a" })) }],
  })),
  ...responses("responses: function calls, outputs and reasoning", 10_000, (size) => ({
    model: "m",
    input: [
      ...times(size, (index) => ({ type: "function_call", call_id: `c${index}`, name: "f", arguments: "{}" })),
      ...times(size, (index) => ({ type: "function_call_output", call_id: `c${index}`, output: "ok" })),
      ...times(size, () => ({ type: "reasoning", summary: [{ type: "summary_text", text: "hm" }] })),
    ],
  })),
  ...messages("messages: tool uses and their results in one turn each", 10_000, (size) => ({
    model: "m",
    max_tokens: 10,
    messages: [
      { role: "user", content: "go" },
      {
        role: "assistant",
        content: times(size, (index) => ({ type: "tool_use", id: `c${index}`, name: "f", input: {} })),
      },
      {
        role: "user",
        content: [
          ...times(size, (index) => ({ type: "tool_result", tool_use_id: `c${index}`, content: "ok" })),
          ...times(size, () => ({ type: "text", text: "a" })),
        ],
      },
    ],
  })),
  ...gemini("gemini: function calls of one name, answered oldest first", 10_000, (size) => ({
    contents: [
      { role: "user", parts: [{ text: "go" }] },
      { role: "model", parts: times(size, () => ({ functionCall: { name: "f", args: {} } })) },
      { role: "user", parts: times(size, () => ({ functionResponse: { name: "f", response: {} } })) },
    ],
  })),
  ...gemini("gemini: function calls with ids, answered newest first", 10_000, (size) => ({
    contents: [
      { role: "user", parts: [{ text: "go" }] },
      { role: "model", parts: times(size, (index) => ({ functionCall: { id: `c${index}`, name: "f", args: {} } })) },
      {
        role: "user",
        parts: times(size, (index) => ({ functionResponse: { id: `c${size - 1 - index}`, name: "f", response: {} } })),
      },
    ],
  })),
  ...gemini("gemini: allowedFunctionNames against every declared function", 10_000, (size) => ({
    contents: [{ role: "user", parts: [{ text: "go" }] }],
    tools: times(16, (group) => ({ functionDeclarations: times(128, (index) => ({ name: `f${group}_${index}` })) })),
    toolConfig: {
      functionCallingConfig: { mode: "ANY", allowedFunctionNames: times(size, (index) => `f15_${index % 128}`) },
    },
  })),
];

describe("edge's request translation", () => {
  it.each(cases)("grows linearly with the request: $name", async ({ size, build, work }) => {
    const growth = await tenfoldGrowth(build, work, size);
    expect(superLinear(growth), `${JSON.stringify(growth)}`).toBe(false);
  });
});
