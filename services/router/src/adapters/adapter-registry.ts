import type { Channel, VendorProtocol } from "@gateway/catalogue";
import { anthropicAdapter } from "./anthropic/anthropic-adapter.js";
import type { ChatAdapter } from "./chat-adapter.js";
import { leavingOutClaudeServerTools } from "./claude-server-tools.js";
import type { EmbeddingAdapter } from "./embedding-adapter.js";
import { createGeminiAdapter } from "./gemini/gemini-adapter.js";
import { geminiEmbeddings } from "./gemini/gemini-embeddings.js";
import { openAICompatibleAdapter } from "./openai-compatible/openai-compatible-adapter.js";
import { openAICompatibleEmbeddings } from "./openai-compatible/openai-embeddings.js";

/** Limits on images an adapter must download itself (vendors that only take inline data). */
export interface ImageFetchPolicy {
  // host or host:port values allowed even though they resolve to private addresses (the simulator).
  allowedPrivateHosts: string[];
  maxBytes: number;
  // The bytes all of one request's downloads may bring in together.
  maxRequestBytes: number;
  timeoutMs: number;
}

export interface AdapterOptions {
  imageFetch: ImageFetchPolicy;
}

/** One adapter per wire protocol; a vendor is added by naming its protocol in the catalogue. */
export function createAdapterRegistry(options: AdapterOptions): (channel: Channel) => ChatAdapter {
  const adapters: Partial<Record<VendorProtocol, ChatAdapter>> = {
    "openai-compatible": leavingOutClaudeServerTools(openAICompatibleAdapter),
    anthropic: anthropicAdapter,
    gemini: leavingOutClaudeServerTools(createGeminiAdapter(options.imageFetch)),
  };
  return (channel) => {
    const adapter = adapters[channel.vendorEntry.protocol];
    if (!adapter) throw new Error(`no adapter speaks ${channel.vendorEntry.protocol}`);
    return adapter;
  };
}

const embeddingAdapters: Partial<Record<VendorProtocol, EmbeddingAdapter>> = {
  "openai-compatible": openAICompatibleEmbeddings,
  gemini: geminiEmbeddings,
};

/** The embeddings adapter of a channel's protocol; the catalogue lists /v1/embeddings only where one exists. */
export function embeddingAdapterFor(channel: Channel): EmbeddingAdapter {
  const adapter = embeddingAdapters[channel.vendorEntry.protocol];
  if (!adapter) throw new Error(`no embeddings adapter speaks ${channel.vendorEntry.protocol}`);
  return adapter;
}
