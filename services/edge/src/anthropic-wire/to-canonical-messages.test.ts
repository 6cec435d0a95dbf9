import type { Caller } from "@gateway/proto/common/v1/common";
import { describe, expect, it } from "vitest";
import { messagesRequestSchema } from "./messages-request-schema.js";
import { betaFeatures, messagesToCanonical } from "./to-canonical-messages.js";

const caller: Caller = {
  requestId: "req_1",
  accountId: "a",
  keyId: "k",
  modelGroup: "default",
  multiplierBasisPoints: 10_000,
};
const canonical = (body: unknown) => messagesToCanonical(messagesRequestSchema.parse(body), caller, []);

describe("a Messages request in canonical form", () => {
  it("puts tool results first as tool messages, keeps thinking with its signature and doubles temperature", () => {
    const request = canonical({
      model: "claude-sonnet-4-5",
      max_tokens: 100,
      temperature: 0.25,
      system: [{ type: "text", text: "rules", cache_control: { type: "ephemeral" } }],
      messages: [
        { role: "user", content: "go" },
        {
          role: "assistant",
          content: [
            { type: "thinking", thinking: "plan", signature: "sig" },
            { type: "tool_use", id: "toolu_1", name: "f", input: { a: 1 } },
          ],
        },
        {
          role: "user",
          content: [
            { type: "text", text: "and then?" },
            { type: "tool_result", tool_use_id: "toolu_1", content: "done", is_error: true },
          ],
        },
      ],
    });
    expect(request.temperature).toBe(0.5);
    expect(request.messages).toEqual([
      {
        role: "system",
        parts: [{ text: "rules", cacheControl: { type: "ephemeral", ttl: undefined } }],
        toolCalls: [],
      },
      { role: "user", text: "go", parts: [], toolCalls: [] },
      {
        role: "assistant",
        parts: [{ thinking: { thinking: "plan", signature: "sig" } }],
        toolCalls: [{ id: "toolu_1", name: "f", arguments: '{"a":1}', cacheControl: undefined }],
        reasoningContent: "plan",
      },
      {
        role: "tool",
        toolCallId: "toolu_1",
        text: "done",
        parts: [],
        toolCalls: [],
        isError: true,
        cacheControl: undefined,
      },
      { role: "user", parts: [{ text: "and then?", cacheControl: undefined }], toolCalls: [] },
    ]);
  });

  it("puts a top-level cache_control on the last block and keeps Claude-only settings apart", () => {
    const request = canonical({
      model: "claude-sonnet-4-5",
      max_tokens: 100,
      cache_control: { type: "ephemeral" },
      output_config: { effort: "low" },
      messages: [{ role: "user", content: "long question" }],
    });
    expect(request.messages.at(-1)!.parts).toEqual([
      { text: "long question", cacheControl: { type: "ephemeral", ttl: undefined } },
    ]);
    expect(JSON.parse(request.anthropicExtraJson)).toEqual({ output_config: { effort: "low" } });
  });

  it("refuses what Anthropic refuses: no max_tokens, a system message opening the conversation, a budget not below max_tokens", () => {
    const base = { model: "m", messages: [{ role: "user", content: "hi" }] };
    expect(messagesRequestSchema.safeParse(base).success).toBe(false);
    expect(
      messagesRequestSchema.safeParse({ ...base, max_tokens: 5, messages: [{ role: "system", content: "x" }] }).success,
    ).toBe(false);
    expect(
      messagesRequestSchema.safeParse({ ...base, max_tokens: 2000, thinking: { type: "enabled", budget_tokens: 2000 } })
        .success,
    ).toBe(false);
  });

  it("takes Claude Code's request: a system message in place, Claude-only fields kept whole, effort as reasoning", () => {
    const request = canonical({
      model: "claude-opus-4-8",
      max_tokens: 64000,
      stream: true,
      system: [{ type: "text", text: "You are Claude Code", cache_control: { type: "ephemeral", scope: "global" } }],
      messages: [
        { role: "user", content: [{ type: "text", text: "list the files" }] },
        { role: "system", content: "<system-reminder>plan mode is off</system-reminder>" },
      ],
      tools: [
        { name: "Glob", description: "find files", input_schema: { type: "object", properties: {} } },
        { type: "web_search_20250305", name: "web_search", max_uses: 5 },
      ],
      thinking: { type: "adaptive" },
      output_config: { effort: "high" },
      context_management: { edits: [{ type: "clear_thinking_20251015", keep: "all" }] },
      metadata: { user_id: "user_abc_account__session_1" },
      a_field_from_next_month: { on: true },
    });
    expect(request.messages.map((message) => message.role)).toEqual(["system", "user", "system"]);
    expect(request.messages[0]!.parts[0]!.cacheControl).toEqual({ type: "ephemeral", ttl: undefined, scope: "global" });
    expect(request.messages[2]!.text).toBe("<system-reminder>plan mode is off</system-reminder>");
    expect(JSON.parse(request.anthropicExtraJson)).toEqual({
      output_config: { effort: "high" },
      context_management: { edits: [{ type: "clear_thinking_20251015", keep: "all" }] },
      a_field_from_next_month: { on: true },
    });
    expect(request.reasoningEffort).toBe("high");
    expect(request.thinking).toEqual({ type: "adaptive", budgetTokens: undefined });
    expect(request.tools[1]).toEqual({
      name: "web_search",
      anthropicToolJson: JSON.stringify({ type: "web_search_20250305", name: "web_search", max_uses: 5 }),
    });
  });

  it("reads an effort without thinking as no reasoning, so no vendor starts thinking unasked", () => {
    const request = canonical({
      model: "m",
      max_tokens: 10,
      messages: [{ role: "user", content: "hi" }],
      output_config: { effort: "low" },
    });
    expect(request.reasoningEffort).toBeUndefined();
  });

  it("refuses a system message that follows an assistant turn, as Anthropic does", () => {
    const body = {
      model: "m",
      max_tokens: 10,
      messages: [
        { role: "user", content: "hi" },
        { role: "assistant", content: "hello" },
        { role: "system", content: "be brief" },
      ],
    };
    const parsed = messagesRequestSchema.safeParse(body);
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues[0]?.path).toEqual(["messages", 2, "role"]);
  });

  it("reads anthropic-beta as a list of feature names", () => {
    expect(betaFeatures("a-2025, b-2026 ,")).toEqual(["a-2025", "b-2026"]);
    expect(betaFeatures(undefined)).toEqual([]);
  });
});
