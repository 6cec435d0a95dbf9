import type { EmbeddingRequest } from "@gateway/proto/router/v1/embeddings";
import { z } from "zod";
import { malformedAnswer, parseVendorJson } from "../../vendor-http/parse-vendor-json.js";
import { postJson } from "../../vendor-http/vendor-client.js";
import type { AdapterCall } from "../chat-adapter.js";
import { type EmbeddingAdapter, type EmbeddingResult, textsOf } from "../embedding-adapter.js";

// Gemini's :batchEmbedContents, which its SDK uses even for one input. It reports no usage.
const batchEmbedResponseSchema = z.object({
  embeddings: z.array(z.object({ values: z.array(z.number()) })),
});

export function toBatchEmbedBody(request: EmbeddingRequest, vendorModel: string) {
  return {
    requests: textsOf(request).map((text) => ({
      model: `models/${vendorModel}`,
      content: { parts: [{ text }] },
      ...(request.dimensions !== undefined && { outputDimensionality: request.dimensions }),
    })),
  };
}

export function fromBatchEmbed(raw: unknown, inputCount: number): EmbeddingResult {
  const response = parseVendorJson(batchEmbedResponseSchema, raw);
  if (response.embeddings.length !== inputCount) throw malformedAnswer();
  return { vectors: response.embeddings.map((embedding) => embedding.values), promptTokens: undefined };
}

export const geminiEmbeddings: EmbeddingAdapter = {
  async embed({ request, model, channel, signal, timeouts }: AdapterCall<EmbeddingRequest>) {
    const raw = await postJson({
      url: `${channel.baseUrl}/v1beta/models/${encodeURIComponent(model.id)}:batchEmbedContents`,
      headers: { "x-goog-api-key": channel.key.secret },
      body: toBatchEmbedBody(request, model.id),
      signal,
      timeouts,
    });
    return fromBatchEmbed(raw, request.inputs.length);
  },
};
