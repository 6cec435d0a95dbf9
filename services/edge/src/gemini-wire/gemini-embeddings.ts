import { int32From, invalidRequest, modelId } from "@gateway/platform";
import type { Caller } from "@gateway/proto/common/v1/common";
import type { EmbeddingList, EmbeddingRequest } from "@gateway/proto/router/v1/embeddings";
import { z } from "zod";

// Gemini's embedContent and batchEmbedContents, served by every embedding model.
// https://ai.google.dev/api/embeddings

const embedContentRequest = z
  .object({
    model: modelId.optional(),
    content: z
      .object({
        role: z.string().optional(),
        parts: z.array(z.object({ text: z.string() }).strict()).min(1, "must not be empty"),
      })
      .strict(),
    // Hints Gemini's embedding models use; no other vendor has them, so they change nothing there.
    taskType: z
      .enum([
        "TASK_TYPE_UNSPECIFIED",
        "RETRIEVAL_QUERY",
        "RETRIEVAL_DOCUMENT",
        "SEMANTIC_SIMILARITY",
        "CLASSIFICATION",
        "CLUSTERING",
        "QUESTION_ANSWERING",
        "FACT_VERIFICATION",
        "CODE_RETRIEVAL_QUERY",
      ])
      .optional(),
    title: z.string().optional(),
    outputDimensionality: int32From(1).optional(),
  })
  .strict();

export const embedContentSchema = embedContentRequest;
export const batchEmbedContentsSchema = z
  .object({ requests: z.array(embedContentRequest).min(1, "must not be empty").max(2048) })
  .strict();

type EmbedContentBody = z.infer<typeof embedContentRequest>;

/** One request's model, when it names one, must be the path's (`models/` prefix or not). */
function checkModel(request: EmbedContentBody, model: string, where: string): void {
  if (request.model !== undefined && request.model.replace(/^models\//, "") !== model) {
    throw invalidRequest(
      `The request names model '${request.model}', not models/${model} of the URL.`,
      `${where}.model`,
    );
  }
}

/** Embed requests in the router's form: one text per request, one output size for all of them. */
export function toCanonicalEmbed(requests: EmbedContentBody[], model: string, caller: Caller): EmbeddingRequest {
  const sizes = new Set(requests.map((request) => request.outputDimensionality));
  if (sizes.size > 1) {
    throw invalidRequest("Every request of a batch must ask for the same outputDimensionality.", "requests");
  }
  for (const [index, request] of requests.entries()) checkModel(request, model, `requests[${index}]`);
  return {
    caller,
    model,
    inputs: requests.map((request) => ({ text: request.content.parts.map((part) => part.text).join("\n") })),
    dimensions: requests[0]?.outputDimensionality,
  };
}

export const renderEmbedContent = (list: EmbeddingList) => ({ embedding: { values: list.data[0]?.values ?? [] } });

export const renderBatchEmbedContents = (list: EmbeddingList) => ({
  embeddings: list.data.map((embedding) => ({ values: embedding.values })),
});
