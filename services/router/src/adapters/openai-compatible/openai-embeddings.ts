import type { EmbeddingRequest } from "@gateway/proto/router/v1/embeddings";
import { z } from "zod";
import { malformedAnswer, parseVendorJson } from "../../vendor-http/parse-vendor-json.js";
import { postJson } from "../../vendor-http/vendor-client.js";
import type { AdapterCall } from "../chat-adapter.js";
import { type EmbeddingAdapter, type EmbeddingResult, textsOf } from "../embedding-adapter.js";

// POST {base}/embeddings, which OpenAI and DashScope's compatible mode share.
const embeddingsResponseSchema = z.object({
  data: z.array(z.object({ index: z.number().int().min(0), embedding: z.array(z.number()) })),
  usage: z
    .object({ prompt_tokens: z.number().int().min(0) })
    .loose()
    .nullish(),
});

/** Token-id inputs go as they are; the router lets them through only for models that take them. */
function inputOf(request: EmbeddingRequest): string[] | number[][] {
  if (request.inputs.every((input) => input.tokens)) return request.inputs.map((input) => input.tokens!.ids);
  return textsOf(request);
}

export function toOpenAIEmbeddingsBody(request: EmbeddingRequest, vendorModel: string) {
  return {
    model: vendorModel,
    input: inputOf(request),
    // Floats always: edge encodes base64 itself, so every vendor looks the same.
    encoding_format: "float",
    ...(request.dimensions !== undefined && { dimensions: request.dimensions }),
    ...(request.user !== undefined && { user: request.user }),
  };
}

export function fromOpenAIEmbeddings(raw: unknown, inputCount: number): EmbeddingResult {
  const response = parseVendorJson(embeddingsResponseSchema, raw);
  const vectors: number[][] = new Array(inputCount);
  for (const item of response.data) if (item.index < inputCount) vectors[item.index] = item.embedding;
  if (response.data.length !== inputCount || vectors.some((vector) => vector === undefined)) {
    throw malformedAnswer();
  }
  return { vectors, promptTokens: response.usage?.prompt_tokens };
}

export const openAICompatibleEmbeddings: EmbeddingAdapter = {
  async embed({ request, model, channel, signal, timeouts }: AdapterCall<EmbeddingRequest>) {
    const raw = await postJson({
      url: `${channel.baseUrl}/embeddings`,
      headers: { authorization: `Bearer ${channel.key.secret}` },
      body: toOpenAIEmbeddingsBody(request, model.id),
      signal,
      timeouts,
    });
    return fromOpenAIEmbeddings(raw, request.inputs.length);
  },
};
