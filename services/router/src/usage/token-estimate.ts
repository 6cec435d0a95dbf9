import type { CatalogueModel } from "@gateway/catalogue";
import type { ChatChunk, ChatRequest } from "@gateway/proto/router/v1/chat";
import type { EmbeddingRequest } from "@gateway/proto/router/v1/embeddings";
import { dataUrlDimensions } from "../media/image-dimensions.js";
import { type ImageTokenRule, imageTokens, protocolImageRule } from "./image-tokens.js";
import { TextTokenCounter } from "./text-tokens.js";

// OpenAI's chat format adds about 3 tokens per message for the role and separators.
const tokensPerMessage = 3;

/**
 * The prompt's tokens as the model's vendor counts them, never fewer: what a request
 * reserves and counts against tokens per minute, and what is billed (flagged as estimated)
 * when a vendor never reports usage (a client that left, a broken stream).
 */
export function estimatePromptTokens(request: ChatRequest, model: CatalogueModel): number {
  const text = new TextTokenCounter(model.tokenizer);
  const imageRule = imageTokenRule(model);
  let tokens = 0;
  for (const message of request.messages) {
    tokens += tokensPerMessage + text.count(message.text ?? "");
    for (const part of message.parts) {
      tokens += text.count(part.text ?? "");
      if (part.imageUrl) {
        tokens += imageTokens(imageRule, dataUrlDimensions(part.imageUrl.url), part.imageUrl.detail);
      }
    }
    for (const call of message.toolCalls) tokens += text.count(call.name) + text.count(call.arguments);
  }
  for (const tool of request.tools) {
    tokens += text.count(tool.name) + text.count(tool.description ?? "") + text.count(tool.parametersJson ?? "");
  }
  return tokens;
}

/** The catalogue's rule for the model, else its vendor protocol's (every channel of a model speaks one protocol). */
export const imageTokenRule = (model: CatalogueModel): ImageTokenRule =>
  model.image_tokens ?? protocolImageRule[model.channels[0]?.vendorEntry.protocol ?? "openai-compatible"];

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

/** Embedding inputs: token ids count as themselves, text as the model's vendor counts it (never fewer). */
export function estimateEmbeddingTokens(request: EmbeddingRequest, model: CatalogueModel): number {
  const text = new TextTokenCounter(model.tokenizer);
  let tokens = 0;
  for (const input of request.inputs) tokens += input.tokens ? input.tokens.ids.length : text.count(input.text ?? "");
  return tokens;
}
