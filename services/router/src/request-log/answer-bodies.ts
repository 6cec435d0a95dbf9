import type { Transcription } from "@gateway/proto/router/v1/audio";
import type { ChatCompletion, ToolCall } from "@gateway/proto/router/v1/chat";
import type { CompletionChoice } from "@gateway/proto/router/v1/completions";
import type { ImagesResponse } from "@gateway/proto/router/v1/images";
import { toolCallLog } from "./request-bodies.js";

// What the request log keeps of each endpoint's answer: the text, reasoning and tool calls of
// every choice (a streamed answer is collected into the same shape), never vectors or images.

export interface AnswerChoiceLog {
  index: number;
  content: string | null;
  // The vendor's thinking text: part of what was paid for (reasoning tokens are output tokens).
  reasoning_content?: string;
  tool_calls?: ReturnType<typeof toolCallLog>[];
  finish_reason?: string;
}

export const answerChoiceLog = (
  index: number,
  content: string | undefined,
  toolCalls: readonly Pick<ToolCall, "id" | "name" | "arguments">[],
  finishReason: string | undefined,
  reasoning?: string,
): AnswerChoiceLog => ({
  index,
  content: content ?? null,
  reasoning_content: reasoning || undefined,
  tool_calls: toolCalls.length > 0 ? toolCalls.map(toolCallLog) : undefined,
  finish_reason: finishReason || undefined,
});

export const chatAnswerLog = (completion: ChatCompletion) => ({
  choices: completion.choices.map((choice) =>
    answerChoiceLog(
      choice.index,
      choice.message?.content,
      choice.message?.toolCalls ?? [],
      choice.finishReason,
      choice.message?.reasoningContent,
    ),
  ),
});

export const textAnswerLog = (choices: readonly CompletionChoice[]) => ({
  choices: choices.map((choice) => answerChoiceLog(choice.index, choice.text, [], choice.finishReason)),
});

export const embeddingAnswerLog = (vectors: readonly (readonly number[])[]) => ({
  embeddings: vectors.length,
  dimensions: vectors[0]?.length ?? 0,
});

export const imagesAnswerLog = (answer: ImagesResponse) => ({
  images: answer.data.length,
  revised_prompts: answer.data.flatMap((image) => (image.revisedPrompt ? [image.revisedPrompt] : [])),
});

export const transcriptionAnswerLog = (transcript: Transcription) => ({
  content_type: transcript.contentType,
  text: transcript.body,
});

/** A relayed Responses answer: its output items as the vendor sent them (reasoning summaries, calls, messages). */
export const responsesAnswerLog = (response: unknown) => ({
  output: (response as { output?: unknown } | undefined)?.output,
});
