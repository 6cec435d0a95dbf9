import type { ChatChunk, ChatCompletion, Usage } from "@gateway/proto/router/v1/chat";
import { parseVendorJson } from "../../vendor-http/parse-vendor-json.js";
import {
  type OpenAIChunk,
  type OpenAICompletion,
  type OpenAIUsage,
  openAIChunkSchema,
  openAICompletionSchema,
} from "./openai-wire-types.js";

const orUndefined = <T>(value: T | null | undefined): T | undefined => value ?? undefined;

const logprobsJsonOf = (logprobs: object | null | undefined) => (logprobs ? JSON.stringify(logprobs) : undefined);

/**
 * Output tokens with reasoning included. OpenAI counts reasoning within completion_tokens; xAI
 * counts it apart (total_tokens = prompt + completion + reasoning). Which convention an answer
 * follows is read from its own numbers, not from who sent it, so any vendor (or proxy) that
 * reports reasoning apart is billed for it; the two agree only when no reasoning was reported.
 */
function completionTokensOf(usage: OpenAIUsage): number {
  const reasoning = usage.completion_tokens_details?.reasoning_tokens ?? 0;
  const apart = reasoning > 0 && usage.total_tokens === usage.prompt_tokens + usage.completion_tokens + reasoning;
  return apart ? usage.completion_tokens + reasoning : usage.completion_tokens;
}

/** The usage as Usage, with the tier that served the call where the answer names it. */
export function toUsage(usage: OpenAIUsage, serviceTier?: string | null): Usage {
  const completionTokens = completionTokensOf(usage);
  return {
    promptTokens: usage.prompt_tokens,
    completionTokens,
    totalTokens: usage.total_tokens ?? usage.prompt_tokens + completionTokens,
    cachedTokens: orUndefined(
      usage.prompt_tokens_details?.cached_tokens ?? usage.prompt_cache_hit_tokens ?? usage.cached_tokens,
    ),
    reasoningTokens: orUndefined(usage.completion_tokens_details?.reasoning_tokens),
    serviceTier: orUndefined(serviceTier),
  };
}

export function fromOpenAICompletion(raw: unknown): ChatCompletion {
  const completion: OpenAICompletion = parseVendorJson(openAICompletionSchema, raw);
  return {
    id: completion.id,
    created: completion.created,
    model: completion.model,
    systemFingerprint: orUndefined(completion.system_fingerprint),
    choices: completion.choices.map((choice) => ({
      index: choice.index,
      finishReason: choice.finish_reason ?? "stop",
      logprobsJson: logprobsJsonOf(choice.logprobs),
      message: {
        content: orUndefined(choice.message.content),
        refusal: orUndefined(choice.message.refusal),
        reasoningContent: orUndefined(choice.message.reasoning_content),
        toolCalls: (choice.message.tool_calls ?? []).map((call) => ({
          id: call.id,
          name: call.function.name,
          arguments: call.function.arguments,
        })),
        thinkingBlocks: [],
      },
    })),
    usage: completion.usage ? toUsage(completion.usage, completion.service_tier) : undefined,
  };
}

/** Maps one SSE data payload; usage may come top-level (OpenAI, DeepSeek, Qwen) or in the choice (Kimi). */
export function fromOpenAIChunk(raw: unknown): ChatChunk {
  const chunk: OpenAIChunk = parseVendorJson(openAIChunkSchema, raw);
  const usage = chunk.usage ?? chunk.choices.find((choice) => choice.usage)?.usage;
  return {
    id: chunk.id,
    created: chunk.created,
    model: chunk.model,
    usage: usage ? toUsage(usage, chunk.service_tier) : undefined,
    choices: chunk.choices.map((choice) => ({
      index: choice.index,
      finishReason: orUndefined(choice.finish_reason),
      logprobsJson: logprobsJsonOf(choice.logprobs),
      delta: {
        role: orUndefined(choice.delta.role),
        content: orUndefined(choice.delta.content),
        refusal: orUndefined(choice.delta.refusal),
        reasoningContent: orUndefined(choice.delta.reasoning_content),
        toolCalls: (choice.delta.tool_calls ?? []).map((call) => ({
          index: call.index,
          id: orUndefined(call.id),
          name: orUndefined(call.function?.name),
          arguments: orUndefined(call.function?.arguments),
        })),
      },
    })),
  };
}
