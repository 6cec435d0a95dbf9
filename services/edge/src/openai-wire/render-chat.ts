import type { ChatChunk, ChatCompletion, Delta, ThinkingBlock, ToolCall, Usage } from "@gateway/proto/router/v1/chat";

// Canonical answers rendered as OpenAI's chat.completion and chat.completion.chunk objects.
// https://platform.openai.com/docs/api-reference/chat/object

export function renderUsage(usage: Usage) {
  return {
    prompt_tokens: usage.promptTokens,
    completion_tokens: usage.completionTokens,
    total_tokens: usage.totalTokens,
    ...((usage.cachedTokens !== undefined || usage.cacheCreationTokens !== undefined) && {
      prompt_tokens_details: {
        cached_tokens: usage.cachedTokens ?? 0,
        // Anthropic's cache writes, named as OpenRouter and LiteLLM name them.
        ...(usage.cacheCreationTokens ? { cache_write_tokens: usage.cacheCreationTokens } : {}),
      },
    }),
    ...(usage.reasoningTokens !== undefined && {
      completion_tokens_details: { reasoning_tokens: usage.reasoningTokens },
    }),
  };
}

/** Claude's thinking with its signature, which a client sends back on the assistant message in a tool loop. */
const renderThinkingBlock = (block: ThinkingBlock) =>
  block.redactedData !== undefined
    ? { type: "redacted_thinking", data: block.redactedData }
    : { type: "thinking", thinking: block.thinking, signature: block.signature ?? "" };

function renderThinkingDelta(delta: Delta) {
  if (delta.reasoningSignature !== undefined) {
    return { thinking_blocks: [{ type: "thinking", thinking: "", signature: delta.reasoningSignature }] };
  }
  if (delta.redactedThinking !== undefined) {
    return { thinking_blocks: [{ type: "redacted_thinking", data: delta.redactedThinking }] };
  }
  return {};
}

const renderToolCall = (call: ToolCall) => ({
  id: call.id,
  type: "function",
  function: { name: call.name, arguments: call.arguments },
});

/** Legacy `functions` clients read one `function_call` and finish_reason `function_call`. */
const legacyFinish = (reason: string | undefined, legacy: boolean) =>
  legacy && reason === "tool_calls" ? "function_call" : reason;

function renderToolCalls(calls: ToolCall[], legacy: boolean) {
  if (calls.length === 0) return {};
  if (legacy) return { function_call: { name: calls[0]!.name, arguments: calls[0]!.arguments } };
  return { tool_calls: calls.map(renderToolCall) };
}

/** The vendor's logprobs object as it sent it; null when the client did not ask or the vendor gave none. */
const renderLogprobs = (logprobsJson: string | undefined): unknown =>
  logprobsJson === undefined ? null : JSON.parse(logprobsJson);

export function renderCompletion(completion: ChatCompletion, legacyFunctions = false) {
  return {
    id: completion.id,
    object: "chat.completion",
    created: completion.created,
    model: completion.model,
    choices: completion.choices.map((choice) => ({
      index: choice.index,
      message: {
        role: "assistant",
        content: choice.message?.content ?? null,
        refusal: choice.message?.refusal ?? null,
        ...(choice.message?.reasoningContent !== undefined && { reasoning_content: choice.message.reasoningContent }),
        ...(choice.message?.thinkingBlocks.length && {
          thinking_blocks: choice.message.thinkingBlocks.map(renderThinkingBlock),
        }),
        ...renderToolCalls(choice.message?.toolCalls ?? [], legacyFunctions),
      },
      logprobs: renderLogprobs(choice.logprobsJson),
      finish_reason: legacyFinish(choice.finishReason, legacyFunctions),
    })),
    usage: completion.usage ? renderUsage(completion.usage) : undefined,
    ...(completion.systemFingerprint && { system_fingerprint: completion.systemFingerprint }),
  };
}

function renderToolCallDeltas(delta: Delta, legacy: boolean) {
  if (delta.toolCalls.length === 0) return {};
  if (legacy) {
    const call = delta.toolCalls[0]!;
    return {
      function_call: {
        ...(call.name !== undefined && { name: call.name }),
        ...(call.arguments !== undefined && { arguments: call.arguments }),
      },
    };
  }
  return {
    tool_calls: delta.toolCalls.map((call) => ({
      index: call.index,
      ...(call.id !== undefined && { id: call.id, type: "function" }),
      function: {
        ...(call.name !== undefined && { name: call.name }),
        ...(call.arguments !== undefined && { arguments: call.arguments }),
      },
    })),
  };
}

function renderDelta(delta: Delta | undefined, legacy: boolean) {
  if (!delta) return {};
  return {
    ...(delta.role !== undefined && { role: delta.role }),
    ...(delta.content !== undefined && { content: delta.content }),
    ...(delta.reasoningContent !== undefined && { reasoning_content: delta.reasoningContent }),
    ...renderThinkingDelta(delta),
    ...(delta.refusal !== undefined && { refusal: delta.refusal }),
    ...renderToolCallDeltas(delta, legacy),
  };
}

/** With include_usage, OpenAI sends `usage: null` on every chunk and the totals on a last one. */
export function renderChunk(chunk: ChatChunk, includeUsage: boolean, legacyFunctions = false) {
  return {
    id: chunk.id,
    object: "chat.completion.chunk",
    created: chunk.created,
    model: chunk.model,
    choices: chunk.choices.map((choice) => ({
      index: choice.index,
      delta: renderDelta(choice.delta, legacyFunctions),
      logprobs: renderLogprobs(choice.logprobsJson),
      finish_reason: legacyFinish(choice.finishReason, legacyFunctions) ?? null,
    })),
    ...(includeUsage && { usage: chunk.usage ? renderUsage(chunk.usage) : null }),
  };
}
