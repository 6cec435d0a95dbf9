import { responseErrors } from "@gateway/openai-spec";
import type { ChatCompletion } from "@gateway/proto/router/v1/chat";
import { describe, expect, it } from "vitest";
import { thinkingOfEncryptedReasoning } from "./encrypted-reasoning.js";
import { assistantTurn, completionToResponse, type ResponseBase, responseSettings } from "./render-response.js";
import { responsesRequestSchema } from "./responses-request-schema.js";
import { chatToolsOf } from "./responses-to-chat.js";

const body = responsesRequestSchema.parse({
  model: "claude-sonnet-4-5",
  input: "hi",
  include: ["reasoning.encrypted_content"],
  store: false,
  text: { verbosity: "low" },
  reasoning: { effort: "high", summary: "auto" },
  tools: [
    { type: "function", name: "exec_command", parameters: { type: "object", properties: {} }, strict: false },
    { type: "custom", name: "apply_patch", format: { type: "grammar", syntax: "lark", definition: "start: x" } },
    { type: "tool_search", execution: "client", description: "Find tools", parameters: { type: "object" } },
    { type: "web_search", external_web_access: false },
  ],
});

const base: ResponseBase = {
  id: "resp_1",
  createdAt: 1,
  model: "claude-sonnet-4-5",
  settings: responseSettings(body),
  toolKinds: chatToolsOf(body).kinds,
  encryptedReasoning: true,
};

const completion: ChatCompletion = {
  id: "c",
  created: 1,
  model: "claude-sonnet-4-5",
  choices: [
    {
      index: 0,
      finishReason: "tool_calls",
      message: {
        reasoningContent: "plan",
        thinkingBlocks: [{ thinking: "plan", signature: "sig" }],
        toolCalls: [
          { id: "call_1", name: "apply_patch", arguments: JSON.stringify({ input: "*** Begin Patch" }) },
          { id: "call_2", name: "exec_command", arguments: '{"cmd":"ls"}' },
        ],
      },
    },
  ],
  usage: {
    promptTokens: 100,
    completionTokens: 40,
    totalTokens: 140,
    cachedTokens: 30,
    cacheCreationTokens: 20,
    reasoningTokens: 25,
  },
};

describe("a chat completion as a Responses response", () => {
  const response = completionToResponse(base, completion);

  it("renders a freeform tool's call as a custom_tool_call with the text the model wrote", () => {
    expect(response.output[1]).toEqual({
      type: "custom_tool_call",
      id: expect.stringMatching(/^ctc_/),
      call_id: "call_1",
      name: "apply_patch",
      input: "*** Begin Patch",
      status: "completed",
    });
    expect(response.output[2]).toMatchObject({ type: "function_call", name: "exec_command" });
  });

  it("carries the signed thinking in the reasoning item's encrypted_content", () => {
    const reasoning = response.output[0] as { encrypted_content?: string };
    expect(response.output[0]).toMatchObject({ type: "reasoning", summary: [{ text: "plan" }] });
    expect(thinkingOfEncryptedReasoning(reasoning.encrypted_content)).toEqual([{ thinking: "plan", signature: "sig" }]);
  });

  it("reports reasoning, cached and cache-written tokens from the canonical usage", () => {
    expect(response.usage).toEqual({
      input_tokens: 100,
      input_tokens_details: { cached_tokens: 30, cache_write_tokens: 20 },
      output_tokens: 40,
      output_tokens_details: { reasoning_tokens: 25 },
      total_tokens: 140,
    });
  });

  it("echoes every tool as the client defined it, the left-out one included", () => {
    expect(response.tools.map((tool) => tool.type)).toEqual(["function", "custom", "tool_search", "web_search"]);
    expect(response.text).toEqual({ format: { type: "text" }, verbosity: "low" });
  });

  it("conforms to OpenAI's published Response schema", () => {
    expect(responseErrors(response)).toEqual([]);
  });

  it("continues as the assistant turn the model made, signed thinking first", () => {
    expect(assistantTurn(response.output, completion.choices[0]!.message!.thinkingBlocks)).toEqual({
      role: "assistant",
      text: undefined,
      parts: [{ thinking: { thinking: "plan", signature: "sig" } }],
      toolCalls: [
        { id: "call_1", name: "apply_patch", arguments: JSON.stringify({ input: "*** Begin Patch" }) },
        { id: "call_2", name: "exec_command", arguments: '{"cmd":"ls"}' },
      ],
      reasoningContent: "plan",
    });
  });
});
