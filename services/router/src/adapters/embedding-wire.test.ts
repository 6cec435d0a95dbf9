import type { EmbeddingRequest } from "@gateway/proto/router/v1/embeddings";
import { describe, expect, it } from "vitest";
import { fromBatchEmbed, toBatchEmbedBody } from "./gemini/gemini-embeddings.js";
import { fromOpenAIEmbeddings, toOpenAIEmbeddingsBody } from "./openai-compatible/openai-embeddings.js";

const request = (overrides: Partial<EmbeddingRequest> = {}): EmbeddingRequest => ({
  caller: undefined,
  model: "m",
  inputs: [{ text: "a" }, { text: "b" }],
  ...overrides,
});

describe("OpenAI-compatible embeddings wire", () => {
  it("sends texts or token ids, floats always, dimensions only when asked", () => {
    expect(toOpenAIEmbeddingsBody(request(), "text-embedding-3-small")).toEqual({
      model: "text-embedding-3-small",
      input: ["a", "b"],
      encoding_format: "float",
    });
    const tokens = request({ inputs: [{ tokens: { ids: [1, 2] } }], dimensions: 8 });
    expect(toOpenAIEmbeddingsBody(tokens, "x")).toMatchObject({ input: [[1, 2]], dimensions: 8 });
  });

  it("orders vectors by index and refuses an answer that misses one", () => {
    const raw = {
      data: [
        { index: 1, embedding: [0.2] },
        { index: 0, embedding: [0.1] },
      ],
      usage: { prompt_tokens: 3, total_tokens: 3 },
    };
    expect(fromOpenAIEmbeddings(raw, 2)).toEqual({ vectors: [[0.1], [0.2]], promptTokens: 3 });
    expect(() => fromOpenAIEmbeddings({ data: [{ index: 0, embedding: [1] }] }, 2)).toThrow(/malformed/);
  });
});

describe("Gemini embeddings wire", () => {
  it("maps inputs to batch requests and dimensions to outputDimensionality", () => {
    expect(toBatchEmbedBody(request({ dimensions: 256 }), "gemini-embedding-001")).toEqual({
      requests: ["a", "b"].map((text) => ({
        model: "models/gemini-embedding-001",
        content: { parts: [{ text }] },
        outputDimensionality: 256,
      })),
    });
  });

  it("reads the vectors and reports no usage", () => {
    expect(fromBatchEmbed({ embeddings: [{ values: [1] }, { values: [2] }] }, 2)).toEqual({
      vectors: [[1], [2]],
      promptTokens: undefined,
    });
    expect(() => fromBatchEmbed({ embeddings: [] }, 2)).toThrow(/malformed/);
  });
});
