import { randomBytes } from "node:crypto";
import { serviceUnavailable } from "@gateway/platform";
import type { ChatChunk, ChatCompletion, Choice, ChunkChoice, ToolCall, Usage } from "@gateway/proto/router/v1/chat";
import {
  type GeminiCandidate,
  type GeminiResponse,
  type GeminiUsage,
  geminiResponseSchema,
} from "./gemini-wire-types.js";

type FinishReason = "stop" | "length" | "content_filter";

/**
 * Every finish reason Gemini documents, and what OpenAI calls it; unknown future values mean stop.
 * https://ai.google.dev/api/generate-content#FinishReason
 */
const finishReasons: Record<string, FinishReason> = {
  STOP: "stop",
  MAX_TOKENS: "length",
  SAFETY: "content_filter",
  RECITATION: "content_filter",
  BLOCKLIST: "content_filter",
  PROHIBITED_CONTENT: "content_filter",
  SPII: "content_filter",
  IMAGE_SAFETY: "content_filter",
  IMAGE_PROHIBITED_CONTENT: "content_filter",
  IMAGE_RECITATION: "content_filter",
  MALFORMED_FUNCTION_CALL: "stop",
  UNEXPECTED_TOOL_CALL: "stop",
  TOO_MANY_TOOL_CALLS: "stop",
  LANGUAGE: "stop",
  OTHER: "stop",
  NO_IMAGE: "stop",
  IMAGE_OTHER: "stop",
  FINISH_REASON_UNSPECIFIED: "stop",
};

/** Gemini ends calls with STOP like any answer; OpenAI says tool_calls when the answer called functions. */
export function toFinishReason(reason: string, calledFunctions: boolean): string {
  const mapped = finishReasons[reason] ?? "stop";
  return mapped === "stop" && calledFunctions ? "tool_calls" : mapped;
}

export function toUsage(usage: GeminiUsage): Usage {
  const promptTokens = usage.promptTokenCount + (usage.toolUsePromptTokenCount ?? 0);
  const thoughts = usage.thoughtsTokenCount ?? undefined;
  const completionTokens = usage.candidatesTokenCount + (thoughts ?? 0);
  return {
    promptTokens,
    completionTokens,
    totalTokens: promptTokens + completionTokens,
    cachedTokens: usage.cachedContentTokenCount ?? undefined,
    reasoningTokens: thoughts,
  };
}

function parseResponse(raw: unknown): GeminiResponse {
  const parsed = geminiResponseSchema.safeParse(raw);
  if (!parsed.success) throw serviceUnavailable("The model provider sent a malformed answer. Please retry.");
  return parsed.data;
}

/**
 * A call's id: Gemini's own when it gives one, else a new random one. Clients pair results with
 * calls by id across the whole conversation, so ids numbered per answer would repeat turn after turn.
 */
export const callIdOf = (vendorId: string | undefined) => vendorId || `call_${randomBytes(12).toString("hex")}`;

interface CandidateContent {
  text: string | undefined;
  /** The thoughtSignature of a text part (Gemini 3 signs an answer's last part; streams may sign an empty one). */
  textSignature: string | undefined;
  thoughts: string | undefined;
  calls: ToolCall[];
}

function contentOf(candidate: GeminiCandidate): CandidateContent {
  let text: string | undefined;
  let textSignature: string | undefined;
  let thoughts: string | undefined;
  const calls: ToolCall[] = [];
  for (const part of candidate.content?.parts ?? []) {
    const thoughtSignature = part.thoughtSignature ?? undefined;
    if (part.functionCall) {
      const args = JSON.stringify(part.functionCall.args ?? {});
      const id = callIdOf(part.functionCall.id ?? undefined);
      calls.push({ id, name: part.functionCall.name, arguments: args, thoughtSignature });
    } else if (typeof part.text === "string") {
      if (part.thought) thoughts = (thoughts ?? "") + part.text;
      else {
        text = (text ?? "") + part.text;
        textSignature = thoughtSignature ?? textSignature;
      }
    }
  }
  return { text, textSignature, thoughts, calls };
}

const blockedPrompt = (response: GeminiResponse) =>
  (response.candidates ?? []).length === 0 && Boolean(response.promptFeedback?.blockReason);

export function fromGeminiResponse(raw: unknown): ChatCompletion {
  const response = parseResponse(raw);
  const candidates = response.candidates ?? [];
  const choices = candidates.map((candidate, position): Choice => {
    const { text, textSignature, thoughts, calls } = contentOf(candidate);
    return {
      index: candidate.index ?? position,
      finishReason: toFinishReason(candidate.finishReason ?? "STOP", calls.length > 0),
      message: {
        content: text ?? (calls.length > 0 ? undefined : ""),
        reasoningContent: thoughts,
        toolCalls: calls,
        thinkingBlocks: [],
        thoughtSignature: textSignature,
      },
    };
  });
  if (choices.length === 0) {
    // No candidates: the prompt was blocked (promptFeedback.blockReason), or nothing came back.
    const finishReason = blockedPrompt(response) ? "content_filter" : "stop";
    choices.push({
      index: 0,
      finishReason,
      message: { content: "", reasoningContent: undefined, toolCalls: [], thinkingBlocks: [] },
    });
  }
  return {
    id: "",
    created: 0,
    model: response.modelVersion ?? "",
    choices,
    usage: response.usageMetadata ? toUsage(response.usageMetadata) : undefined,
  };
}

/**
 * Maps a streamGenerateContent SSE stream: each event is a whole GenerateContentResponse holding
 * only new parts. Text becomes content deltas; each functionCall arrives whole and becomes one
 * complete tool-call fragment; usageMetadata may repeat, so only the last is kept for `finish`.
 */
export class GeminiStreamMapper {
  private readonly callsPerCandidate = new Map<number, number>();
  private model = "";
  private usage: Usage | undefined;

  map(raw: unknown): ChatChunk | undefined {
    const response = parseResponse(raw);
    this.model ||= response.modelVersion ?? "";
    if (response.usageMetadata) this.usage = toUsage(response.usageMetadata);
    const choices: ChunkChoice[] = [];
    for (const [position, candidate] of (response.candidates ?? []).entries()) {
      const choice = this.choiceOf(candidate.index ?? position, candidate);
      if (choice) choices.push(choice);
    }
    if (blockedPrompt(response)) choices.push(this.blockedChoice());
    return choices.length > 0 ? { id: "", created: 0, model: this.model, choices, usage: undefined } : undefined;
  }

  /** The chunk carrying the stream's usage, once it ended. */
  finish(): ChatChunk | undefined {
    return this.usage ? { id: "", created: 0, model: this.model, choices: [], usage: this.usage } : undefined;
  }

  private choiceOf(index: number, candidate: GeminiCandidate): ChunkChoice | undefined {
    const { text, textSignature, thoughts, calls } = contentOf(candidate);
    const first = !this.callsPerCandidate.has(index);
    const before = this.callsPerCandidate.get(index) ?? 0;
    this.callsPerCandidate.set(index, before + calls.length);
    const toolCalls = calls.map((call, offset) => ({ index: before + offset, ...call }));
    const finishReason = candidate.finishReason
      ? toFinishReason(candidate.finishReason, before + calls.length > 0)
      : undefined;
    const content = text === "" ? undefined : text;
    const nothingNew =
      content === undefined && thoughts === undefined && textSignature === undefined && toolCalls.length === 0;
    if (!first && nothingNew && !finishReason) return undefined;
    return {
      index,
      finishReason,
      delta: {
        role: first ? "assistant" : undefined,
        content,
        reasoningContent: thoughts,
        toolCalls,
        thoughtSignature: textSignature,
      },
    };
  }

  private blockedChoice(): ChunkChoice {
    const first = !this.callsPerCandidate.has(0);
    this.callsPerCandidate.set(0, this.callsPerCandidate.get(0) ?? 0);
    return {
      index: 0,
      finishReason: "content_filter",
      delta: { role: first ? "assistant" : undefined, toolCalls: [] },
    };
  }
}
