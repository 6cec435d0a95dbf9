import type { Caller } from "@gateway/proto/common/v1/common";
import type { EmbeddingInput, EmbeddingList, EmbeddingRequest } from "@gateway/proto/router/v1/embeddings";
import type { EmbeddingRequestBody } from "./embedding-request-schema.js";

function toInputs(input: EmbeddingRequestBody["input"]): EmbeddingInput[] {
  if (typeof input === "string") return [{ text: input }];
  if (input.every((item) => typeof item === "number")) return [{ tokens: { ids: input as number[] } }];
  return (input as Array<string | number[]>).map((item) =>
    typeof item === "string" ? { text: item } : { tokens: { ids: item } },
  );
}

/** The validated embeddings body in the router's typed form. */
export function toCanonicalEmbeddings(body: EmbeddingRequestBody, caller: Caller): EmbeddingRequest {
  return {
    caller,
    model: body.model,
    inputs: toInputs(body.input),
    dimensions: body.dimensions ?? undefined,
    user: body.user,
  };
}

/** OpenAI's base64 form: the vector's float32 values, little-endian, base64-encoded. */
export function encodeBase64Floats(values: readonly number[]): string {
  const bytes = Buffer.alloc(values.length * 4);
  for (const [index, value] of values.entries()) bytes.writeFloatLE(value, index * 4);
  return bytes.toString("base64");
}

export function renderEmbeddings(list: EmbeddingList, encoding: "float" | "base64") {
  return {
    object: "list",
    data: list.data.map((embedding) => ({
      object: "embedding",
      index: embedding.index,
      embedding: encoding === "base64" ? encodeBase64Floats(embedding.values) : embedding.values,
    })),
    model: list.model,
    usage: { prompt_tokens: list.usage?.promptTokens ?? 0, total_tokens: list.usage?.totalTokens ?? 0 },
  };
}
