import { clearSimulatorRequests, simulatorRequests, startTestStack, type TestStack } from "@gateway/stack";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

// Requests of very many tool calls, tool results or parts: edge pairs a Gemini request's
// functionCall parts, router translates chat's tool results into Gemini's contents. Either is
// linear work on an event loop every tenant shares. A request past what any client sends
// (REQUEST_MAX_PARTS, REQUEST_MAX_TOOL_CALLS) is refused before that work.

const maxParts = 20_000;
const maxToolCalls = 10_000;

let stack: TestStack;
let attackerKey: string;

beforeAll(async () => {
  stack = await startTestStack();
  attackerKey = (await stack.createAccount({ group: "premium" })).api_key;
});
afterAll(async () => {
  await stack?.teardown();
});

const times = <T>(count: number, item: (index: number) => T) =>
  Array.from({ length: count }, (_, index) => item(index));

const geminiPath = "/models/gemini-2.5-flash:generateContent";

/** A Gemini request whose model turn calls a function `count` times (3.0 MB at 100,000). */
const geminiFunctionCalls = (count: number) => ({
  contents: [
    { role: "user", parts: [{ text: "go" }] },
    { role: "model", parts: times(count, () => ({ functionCall: { name: "f" } })) },
    { role: "user", parts: [{ text: "go on" }] },
  ],
  generationConfig: { maxOutputTokens: 5 },
});

/** A chat request to a Gemini model answering one tool call `count` times (3.9 MB at 80,000). */
const chatToolResults = (count: number) => ({
  model: "gemini-2.5-flash",
  max_tokens: 5,
  messages: [
    { role: "user", content: "go" },
    {
      role: "assistant",
      content: null,
      tool_calls: [{ id: "call_0", type: "function", function: { name: "f", arguments: "{}" } }],
    },
    ...times(count, () => ({ role: "tool", tool_call_id: "call_0", content: "ok" })),
  ],
});

describe("a request past the bounds of one conversation", () => {
  async function expectRefused(path: string, body: unknown, setting: string) {
    await clearSimulatorRequests(stack.simulatorUrl);
    const response = await fetch(`${stack.baseUrl}${path}`, {
      method: "POST",
      headers: { authorization: `Bearer ${attackerKey}`, "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    const text = await response.text();
    expect(response.status, text).toBe(400);
    expect(text).toContain(setting);
    expect(await simulatorRequests(stack.simulatorUrl)).toEqual([]);
    return JSON.parse(text) as { error: { param?: string; code?: string | number } };
  }

  it("is a 400 naming the bound on chat, Messages, Responses and Gemini, before any vendor call", async () => {
    const chat = await expectRefused("/chat/completions", chatToolResults(maxToolCalls + 1), "REQUEST_MAX_TOOL_CALLS");
    expect(chat.error).toMatchObject({ param: "messages", code: "too_many_tool_results" });
    const parts = times(maxParts, () => ({ type: "text", text: "a" }));
    const many = await expectRefused(
      "/chat/completions",
      { model: "gpt-4o-mini", messages: [{ role: "user", content: parts }] },
      "REQUEST_MAX_PARTS",
    );
    expect(many.error).toMatchObject({ param: "messages", code: "too_many_parts" });
    await expectRefused(
      "/messages",
      {
        model: "claude-sonnet-4-5",
        max_tokens: 5,
        messages: [
          { role: "user", content: "go" },
          {
            role: "assistant",
            content: times(maxToolCalls + 1, (index) => ({ type: "tool_use", id: `t${index}`, name: "f", input: {} })),
          },
        ],
      },
      "REQUEST_MAX_TOOL_CALLS",
    );
    const responses = await expectRefused(
      "/responses",
      {
        model: "qwen-plus",
        input: times(maxToolCalls + 1, (index) => ({
          type: "function_call_output",
          call_id: `c${index}`,
          output: "ok",
        })),
      },
      "REQUEST_MAX_TOOL_CALLS",
    );
    expect(responses.error).toMatchObject({ param: "input", code: "too_many_tool_results" });
    await expectRefused(geminiPath, geminiFunctionCalls(maxToolCalls + 1), "REQUEST_MAX_TOOL_CALLS");
    await expectRefused(
      "/models/gemini-2.5-flash:countTokens",
      { contents: [{ role: "user", parts: times(maxParts, () => ({ text: "a" })) }] },
      "REQUEST_MAX_PARTS",
    );
  }, 60_000);
});
