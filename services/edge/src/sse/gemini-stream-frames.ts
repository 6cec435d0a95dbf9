import type { ChatChunk, ChunkChoice, ToolCall } from "@gateway/proto/router/v1/chat";
import { thoughtPartOf } from "../gemini-wire/claude-thought-parts.js";
import { googleErrorBody } from "../gemini-wire/google-errors.js";
import {
  functionCallPart,
  type GeminiPart,
  renderUsageMetadata,
  textParts,
  toFinishReason,
} from "../gemini-wire/render-gemini.js";
import type { StreamRendering } from "../http/relay-call.js";
import { eventStreamHeaders } from "./data-frames.js";

interface Candidate {
  content: { role: "model"; parts: GeminiPart[] };
  finishReason?: string;
  index: number;
}

/**
 * streamGenerateContent's answer: with `alt=sse` each GenerateContentResponse in a `data:` event
 * (no [DONE]: the stream just ends), without it one JSON array written element by element.
 *
 * Text and thoughts go out as they arrive (Claude's signed thinking as claude-thought-parts.ts
 * renders it). Gemini sends each functionCall whole, so tool-call
 * fragments are gathered per candidate and sent with its finish reason. A finished candidate
 * waits for the usage chunk that follows, so the last event carries finishReason and
 * usageMetadata together, as Gemini's does.
 */
export function geminiStreamFrames(options: { sse: boolean; includeThoughts: boolean }): StreamRendering<ChatChunk> {
  const calls = new Map<number, ToolCall[]>();
  const hiddenThoughts = new Map<number, string>();
  let finished: Candidate[] = [];
  let written = 0;
  let modelVersion = "";
  let responseId = "";

  const frame = (payload: unknown) => {
    const json = JSON.stringify(payload);
    if (options.sse) return `data: ${json}\r\n\r\n`;
    return `${written++ > 0 ? ",\r\n" : ""}${json}`;
  };
  const response = (candidates: Candidate[], extra: Record<string, unknown> = {}) =>
    frame({ candidates, ...extra, modelVersion, responseId });

  function gather(choice: ChunkChoice): ToolCall[] {
    const gathered = calls.get(choice.index) ?? [];
    calls.set(choice.index, gathered);
    for (const delta of choice.delta?.toolCalls ?? []) {
      const call = gathered[delta.index] ?? { id: "", name: "", arguments: "" };
      gathered[delta.index] = call;
      call.id ||= delta.id ?? "";
      call.name ||= delta.name ?? "";
      call.arguments += delta.arguments ?? "";
      call.thoughtSignature ??= delta.thoughtSignature;
    }
    return gathered;
  }

  /**
   * Thoughts as they come when shown; Claude's signature (or redacted block) closes its thinking
   * on a thought part of its own. Hidden thinking is kept until then, to go inside that part.
   */
  function thoughtParts(choice: ChunkChoice): GeminiPart[] {
    const delta = choice.delta;
    const shown = options.includeThoughts;
    const parts: GeminiPart[] = [];
    if (shown && delta?.reasoningContent) parts.push({ text: delta.reasoningContent, thought: true });
    const hidden = shown ? "" : (hiddenThoughts.get(choice.index) ?? "") + (delta?.reasoningContent ?? "");
    if (hidden) hiddenThoughts.set(choice.index, hidden);
    const closing = delta?.reasoningSignature
      ? thoughtPartOf({ thinking: hidden, signature: delta.reasoningSignature }, shown)
      : delta?.redactedThinking !== undefined
        ? thoughtPartOf({ thinking: "", redactedData: delta.redactedThinking }, shown)
        : undefined;
    if (closing) {
      parts.push(closing);
      hiddenThoughts.delete(choice.index);
    }
    return parts;
  }

  function candidateOf(choice: ChunkChoice): Candidate | undefined {
    const delta = choice.delta;
    const parts = thoughtParts(choice);
    parts.push(...textParts(delta?.content, delta?.thoughtSignature));
    const gathered = gather(choice);
    if (!choice.finishReason)
      return parts.length > 0 ? { content: { role: "model", parts }, index: choice.index } : undefined;
    parts.push(...gathered.map(functionCallPart));
    calls.delete(choice.index);
    hiddenThoughts.delete(choice.index);
    finished.push({
      content: { role: "model", parts },
      finishReason: toFinishReason(choice.finishReason),
      index: choice.index,
    });
    return undefined;
  }

  const flushFinished = (extra?: Record<string, unknown>) => {
    const candidates = finished;
    finished = [];
    return candidates.length > 0 || extra ? response(candidates, extra) : "";
  };

  return {
    open: () => ({
      status: 200,
      headers: options.sse ? eventStreamHeaders : { "content-type": "application/json; charset=utf-8" },
      body: options.sse ? undefined : "[",
    }),
    chunk: (chunk) => {
      modelVersion ||= chunk.model;
      responseId ||= chunk.id;
      const live = chunk.choices.flatMap((choice) => candidateOf(choice) ?? []);
      let bytes = live.length > 0 ? response(live) : "";
      if (chunk.usage) bytes += flushFinished({ usageMetadata: renderUsageMetadata(chunk.usage) });
      return bytes;
    },
    close: () => flushFinished() + (options.sse ? "" : "]"),
    fail: (error) => frame(googleErrorBody(error)) + (options.sse ? "" : "]"),
  };
}
