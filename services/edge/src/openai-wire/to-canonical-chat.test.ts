import { describe, expect, it } from "vitest";
import { chatRequestSchema } from "./chat-request-schema.js";
import { toCanonicalChat } from "./to-canonical-chat.js";

const caller = { requestId: "req_1", accountId: "a", keyId: "k", modelGroup: "default", multiplierBasisPoints: 10_000 };
const canonical = (body: unknown) => toCanonicalChat(chatRequestSchema.parse(body), caller);

describe("OpenAI chat body to the canonical request", () => {
  it("keeps string content as text and array content as typed parts", () => {
    const request = canonical({
      model: "m",
      messages: [
        { role: "system", content: "be brief" },
        {
          role: "user",
          content: [
            { type: "text", text: "what is this?" },
            { type: "image_url", image_url: { url: "https://example.com/a.png", detail: "low" } },
          ],
        },
      ],
    });
    expect(request.messages[0]).toMatchObject({ role: "system", text: "be brief", parts: [] });
    expect(request.messages[1]!.text).toBeUndefined();
    expect(request.messages[1]!.parts).toEqual([
      { text: "what is this?" },
      { imageUrl: { url: "https://example.com/a.png", detail: "low" } },
    ]);
  });

  it("maps tools, tool choice, tool calls and tool results", () => {
    const request = canonical({
      model: "m",
      messages: [
        { role: "user", content: "weather?" },
        {
          role: "assistant",
          content: null,
          tool_calls: [{ id: "call_1", type: "function", function: { name: "get_weather", arguments: "{}" } }],
        },
        { role: "tool", tool_call_id: "call_1", content: "sunny" },
      ],
      tools: [{ type: "function", function: { name: "get_weather", parameters: { type: "object" } } }],
      tool_choice: { type: "function", function: { name: "get_weather" } },
    });
    expect(request.tools).toEqual([
      { name: "get_weather", description: undefined, parametersJson: '{"type":"object"}', strict: undefined },
    ]);
    expect(request.toolChoice).toEqual({ mode: "function", functionName: "get_weather" });
    expect(request.messages[1]!.toolCalls).toEqual([{ id: "call_1", name: "get_weather", arguments: "{}" }]);
    expect(request.messages[2]!.toolCallId).toBe("call_1");
  });

  it("prefers max_completion_tokens, turns a single stop into a list, models reasoning_effort and keeps pass-through fields", () => {
    const request = canonical({
      model: "m",
      messages: [{ role: "user", content: "hi" }],
      max_tokens: 5,
      max_completion_tokens: 9,
      stop: "END",
      reasoning_effort: "low",
      logit_bias: { "50256": -100 },
      stream: true,
      stream_options: { include_usage: true },
    });
    expect(request.maxTokens).toBe(9);
    expect(request.stop).toEqual(["END"]);
    expect(request.reasoningEffort).toBe("low");
    expect(JSON.parse(request.extraJson)).toEqual({ logit_bias: { "50256": -100 } });
    expect(request).toMatchObject({ stream: true, includeUsage: true, caller });
  });

  it("maps legacy functions, function_call and function results onto tools", () => {
    const request = canonical({
      model: "m",
      messages: [
        { role: "user", content: "weather?" },
        { role: "assistant", content: null, function_call: { name: "get_weather", arguments: '{"city":"Paris"}' } },
        { role: "function", name: "get_weather", content: "sunny" },
      ],
      functions: [{ name: "get_weather", parameters: { type: "object" } }],
      function_call: { name: "get_weather" },
    });
    expect(request.tools.map((tool) => tool.name)).toEqual(["get_weather"]);
    expect(request.toolChoice).toEqual({ mode: "function", functionName: "get_weather" });
    expect(request.parallelToolCalls).toBe(false);
    const callId = request.messages[1]!.toolCalls[0]!.id;
    expect(request.messages[2]).toMatchObject({ role: "tool", text: "sunny", toolCallId: callId });
  });
});
