import { randomBytes } from "node:crypto";
import type { ChatCompletion, ThinkingBlock, ToolCall, Usage } from "@gateway/proto/router/v1/chat";

// Canonical answers rendered as Anthropic's message object.
// https://docs.anthropic.com/en/api/messages

/** Claude's own message ids pass through; other vendors' answers get one in Anthropic's form. */
export const messageId = (vendorId: string) =>
  vendorId.startsWith("msg_") ? vendorId : `msg_${randomBytes(12).toString("hex")}`;

const stopReasons: Record<string, string> = {
  stop: "end_turn",
  length: "max_tokens",
  tool_calls: "tool_use",
  function_call: "tool_use",
  content_filter: "refusal",
};

/** OpenAI's finish_reason (and the stop sequence, when the vendor named it) as Anthropic's stop_reason. */
export function stopReasonOf(finishReason: string | undefined, stopSequence: string | undefined): string {
  if (stopSequence !== undefined && finishReason === "stop") return "stop_sequence";
  return (finishReason && stopReasons[finishReason]) ?? "end_turn";
}

/** Anthropic splits input three ways; the canonical prompt_tokens is their sum. */
export function renderUsage(usage: Usage | undefined) {
  const cacheRead = usage?.cachedTokens ?? 0;
  const cacheCreation = usage?.cacheCreationTokens ?? 0;
  return {
    input_tokens: Math.max(0, (usage?.promptTokens ?? 0) - cacheRead - cacheCreation),
    output_tokens: usage?.completionTokens ?? 0,
    cache_creation_input_tokens: cacheCreation,
    cache_read_input_tokens: cacheRead,
    // As Claude reports it (beta thinking-token-count-2026-05-13), from whichever vendor thought.
    ...(usage?.reasoningTokens !== undefined && {
      output_tokens_details: { thinking_tokens: usage.reasoningTokens },
    }),
  };
}

export const thinkingContent = (block: ThinkingBlock) =>
  block.redactedData !== undefined
    ? { type: "redacted_thinking", data: block.redactedData }
    : { type: "thinking", thinking: block.thinking, signature: block.signature ?? "" };

/** JSON arguments as the input object Anthropic shows; arguments that are not an object are kept as text. */
export function toolInput(argumentsJson: string): Record<string, unknown> {
  try {
    const input: unknown = argumentsJson.trim() === "" ? {} : JSON.parse(argumentsJson);
    if (typeof input === "object" && input !== null && !Array.isArray(input)) return input as Record<string, unknown>;
  } catch {
    // Fall through: the model wrote arguments that are not JSON.
  }
  return { arguments: argumentsJson };
}

const toolUseContent = (call: ToolCall) => ({
  type: "tool_use",
  id: call.id,
  name: call.name,
  input: toolInput(call.arguments),
});

/**
 * Claude's thinking blocks as they came; a vendor that only gives reasoning text (DeepSeek,
 * Qwen, Kimi) has it shown as a thinking block without a signature.
 */
function thinkingBlocksOf(message: NonNullable<ChatCompletion["choices"][number]["message"]>) {
  if (message.thinkingBlocks.length > 0) return message.thinkingBlocks.map(thinkingContent);
  return message.reasoningContent ? [{ type: "thinking", thinking: message.reasoningContent, signature: "" }] : [];
}

export function renderMessage(completion: ChatCompletion, requestedModel: string) {
  const choice = completion.choices[0];
  const message = choice?.message;
  const content = [
    ...(message ? thinkingBlocksOf(message) : []),
    ...(message?.content ? [{ type: "text", text: message.content, citations: null }] : []),
    ...(message?.toolCalls ?? []).map(toolUseContent),
  ];
  return {
    id: messageId(completion.id),
    type: "message",
    role: "assistant",
    model: completion.model || requestedModel,
    content,
    stop_reason: stopReasonOf(choice?.finishReason, choice?.stopSequence),
    stop_sequence: choice?.stopSequence ?? null,
    usage: renderUsage(completion.usage),
  };
}
