import type { EmbeddingRequest } from "@gateway/proto/router/v1/embeddings";
import type { AdapterCall } from "./chat-adapter.js";

export interface EmbeddingResult {
  // One vector per input, in input order.
  vectors: number[][];
  // Undefined when the vendor reports no usage (Gemini); the router then estimates.
  promptTokens: number | undefined;
}

/** Speaks one vendor's embeddings protocol. */
export interface EmbeddingAdapter {
  embed(call: AdapterCall<EmbeddingRequest>): Promise<EmbeddingResult>;
}

/** The inputs as the texts they are; callers check beforehand that the model gets no token ids. */
export function textsOf(request: EmbeddingRequest): string[] {
  return request.inputs.map((input) => input.text ?? "");
}
