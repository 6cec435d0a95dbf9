import { GatewayError } from "@gateway/platform";
import type { EmbeddingRequest } from "@gateway/proto/router/v1/embeddings";
import { describe, expect, it } from "vitest";
import { checkEmbeddingRequest } from "./embedding-rules.js";

const request = (overrides: Partial<EmbeddingRequest> = {}): EmbeddingRequest => ({
  caller: undefined,
  model: "m",
  inputs: [{ text: "hello" }],
  ...overrides,
});
const resizable = { dimensions: 1536, dimensions_range: { min: 1, max: 1536 }, token_input: true };
const fixed = { dimensions: 1024, token_input: false };

function refusal(work: () => void): GatewayError {
  try {
    work();
  } catch (error) {
    if (error instanceof GatewayError) return error;
  }
  throw new Error("expected a refusal");
}

describe("embedding requests against the catalogue", () => {
  it("accepts dimensions within the model's range", () => {
    expect(() => checkEmbeddingRequest(request({ dimensions: 256 }), "m", resizable)).not.toThrow();
  });

  it("refuses dimensions the model does not take, naming the parameter", () => {
    const error = refusal(() => checkEmbeddingRequest(request({ dimensions: 256 }), "m", fixed));
    expect(error).toMatchObject({ httpStatus: 400, param: "dimensions", code: "unsupported_parameter" });
    const tooLarge = refusal(() => checkEmbeddingRequest(request({ dimensions: 2000 }), "m", resizable));
    expect(tooLarge).toMatchObject({ param: "dimensions", code: "invalid_value" });
  });

  it("refuses token ids for text-only models", () => {
    const tokens = request({ inputs: [{ tokens: { ids: [1, 2] } }] });
    expect(() => checkEmbeddingRequest(tokens, "m", resizable)).not.toThrow();
    expect(refusal(() => checkEmbeddingRequest(tokens, "m", fixed))).toMatchObject({ param: "input" });
  });
});
