import type { AssistantMessage, ChatCompletion, ToolCall, Usage } from "@gateway/proto/router/v1/chat";
import { thoughtPartOf } from "./claude-thought-parts.js";

// Canonical answers as Gemini's GenerateContentResponse.
// https://ai.google.dev/api/generate-content#generatecontentresponse

// thoughtSignature: Gemini's, on the part it came on, for the client to send back there (on a
// thought part, Claude's: see claude-thought-parts.ts).
export type GeminiPart =
  | { text: string; thought?: true; thoughtSignature?: string }
  | { functionCall: { id: string; name: string; args: Record<string, unknown> }; thoughtSignature?: string };

/** Gemini's finish reasons for the canonical (OpenAI) ones; a function call ends with STOP. */
const finishReasons: Record<string, string> = {
  stop: "STOP",
  tool_calls: "STOP",
  function_call: "STOP",
  length: "MAX_TOKENS",
  content_filter: "SAFETY",
};

export const toFinishReason = (reason: string) => finishReasons[reason] ?? "OTHER";

/** Gemini's usageMetadata: candidates count without thoughts, which have their own count. */
export function renderUsageMetadata(usage: Usage) {
  const thoughts = usage.reasoningTokens ?? 0;
  return {
    promptTokenCount: usage.promptTokens,
    candidatesTokenCount: Math.max(0, usage.completionTokens - thoughts),
    totalTokenCount: usage.totalTokens,
    ...(thoughts > 0 && { thoughtsTokenCount: thoughts }),
    ...(usage.cachedTokens !== undefined && { cachedContentTokenCount: usage.cachedTokens }),
  };
}

/** Tool arguments as Gemini's args object; a model's malformed JSON is kept under `arguments`. */
function argsOf(text: string): Record<string, unknown> {
  try {
    const parsed: unknown = JSON.parse(text || "{}");
    if (typeof parsed === "object" && parsed !== null && !Array.isArray(parsed))
      return parsed as Record<string, unknown>;
  } catch {
    // Kept as text below.
  }
  return { arguments: text };
}

const signed = (thoughtSignature: string | undefined) => (thoughtSignature ? { thoughtSignature } : {});

export const functionCallPart = (call: ToolCall): GeminiPart => ({
  functionCall: { id: call.id, name: call.name, args: argsOf(call.arguments) },
  ...signed(call.thoughtSignature),
});

/** A text part; a signature without text still goes out, on an empty part as Gemini streams it. */
export function textParts(text: string | undefined, thoughtSignature: string | undefined): GeminiPart[] {
  return text || thoughtSignature ? [{ text: text ?? "", ...signed(thoughtSignature) }] : [];
}

/**
 * Thoughts first, then text, then calls. Claude's thinking blocks always go out (hidden ones
 * opaque), since the client must send them back; other thoughts only when asked for, as Gemini
 * sends them.
 */
export function partsOf(message: AssistantMessage | undefined, includeThoughts: boolean): GeminiPart[] {
  const parts: GeminiPart[] = [];
  if (message?.thinkingBlocks.length) {
    parts.push(...message.thinkingBlocks.flatMap((block) => thoughtPartOf(block, includeThoughts) ?? []));
  } else if (includeThoughts && message?.reasoningContent) {
    parts.push({ text: message.reasoningContent, thought: true });
  }
  parts.push(...textParts(message?.content, message?.thoughtSignature));
  for (const call of message?.toolCalls ?? []) parts.push(functionCallPart(call));
  return parts;
}

export function renderGenerateContent(completion: ChatCompletion, includeThoughts: boolean) {
  return {
    candidates: completion.choices.map((choice) => ({
      content: { role: "model", parts: partsOf(choice.message, includeThoughts) },
      finishReason: toFinishReason(choice.finishReason),
      index: choice.index,
    })),
    ...(completion.usage && { usageMetadata: renderUsageMetadata(completion.usage) }),
    modelVersion: completion.model,
    responseId: completion.id,
  };
}
