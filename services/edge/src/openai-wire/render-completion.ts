import type { Completion, CompletionChoice, CompletionChunk } from "@gateway/proto/router/v1/completions";
import { renderUsage } from "./render-chat.js";

// Router answers rendered as OpenAI's text_completion objects; chunks have the same shape.
// https://platform.openai.com/docs/api-reference/completions/object

const renderChoice = (choice: CompletionChoice) => ({
  text: choice.text,
  index: choice.index,
  logprobs: null,
  finish_reason: choice.finishReason || null,
});

export function renderTextCompletion(completion: Completion) {
  return {
    id: completion.id,
    object: "text_completion",
    created: completion.created,
    model: completion.model,
    choices: completion.choices.map(renderChoice),
    usage: completion.usage ? renderUsage(completion.usage) : undefined,
  };
}

/** With include_usage, every chunk says `usage: null` and a last one without choices carries the totals. */
export function renderTextChunk(chunk: CompletionChunk, includeUsage: boolean) {
  return {
    id: chunk.id,
    object: "text_completion",
    created: chunk.created,
    model: chunk.model,
    choices: chunk.choices.map(renderChoice),
    ...(includeUsage && { usage: chunk.usage ? renderUsage(chunk.usage) : null }),
  };
}
