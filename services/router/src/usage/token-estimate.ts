import type { ChatChunk, ChatRequest } from "@gateway/proto/router/v1/chat";
import type { EmbeddingRequest } from "@gateway/proto/router/v1/embeddings";

// A rough count used only when a vendor never reports usage (a client that left, a
// broken stream); such events are flagged as estimated.
const charactersPerToken = 4;
const tokensPerMessage = 3;
const tokensPerImage = 85;

export function estimatePromptTokens(request: ChatRequest): number {
  let characters = 0;
  let extra = 0;
  for (const message of request.messages) {
    extra += tokensPerMessage;
    characters += message.text?.length ?? 0;
    for (const part of message.parts) {
      characters += part.text?.length ?? 0;
      if (part.imageUrl) extra += tokensPerImage;
    }
    for (const call of message.toolCalls) characters += call.name.length + call.arguments.length;
  }
  for (const tool of request.tools) characters += tool.name.length + (tool.parametersJson?.length ?? 0);
  return Math.ceil(characters / charactersPerToken) + extra;
}

/** Vendors stream about one token per fragment, so fragments delivered approximate completion tokens. */
export function countChunkTokens(chunk: ChatChunk): number {
  let fragments = 0;
  for (const choice of chunk.choices) {
    const delta = choice.delta;
    if (!delta) continue;
    if (delta.content) fragments += 1;
    if (delta.reasoningContent) fragments += 1;
    for (const call of delta.toolCalls) if (call.arguments) fragments += 1;
  }
  return fragments;
}

/** Embedding inputs: token ids count as themselves, text at the usual characters per token. */
export function estimateEmbeddingTokens(request: EmbeddingRequest): number {
  let tokens = 0;
  for (const input of request.inputs) {
    tokens += input.tokens ? input.tokens.ids.length : Math.ceil((input.text ?? "").length / charactersPerToken);
  }
  return tokens;
}
