import { GatewayError } from "@gateway/platform";
import { describe, expect, it } from "vitest";
import { embeddingRequestSchema } from "./embedding-request-schema.js";
import { encodeBase64Floats, renderEmbeddings, toCanonicalEmbeddings } from "./embeddings-wire.js";
import { validateBody } from "./validate-body.js";

const caller = { requestId: "r", accountId: "a", keyId: "k", modelGroup: "default", multiplierBasisPoints: 10_000 };
const canonical = (body: unknown) => toCanonicalEmbeddings(validateBody(embeddingRequestSchema, body), caller);

describe("embeddings request", () => {
  it("takes a string, strings, token ids and token-id arrays", () => {
    expect(canonical({ model: "m", input: "a" }).inputs).toEqual([{ text: "a" }]);
    expect(canonical({ model: "m", input: ["a", "b"] }).inputs).toEqual([{ text: "a" }, { text: "b" }]);
    expect(canonical({ model: "m", input: [1, 2] }).inputs).toEqual([{ tokens: { ids: [1, 2] } }]);
    expect(canonical({ model: "m", input: [[1], [2, 3]], dimensions: 8 })).toMatchObject({
      inputs: [{ tokens: { ids: [1] } }, { tokens: { ids: [2, 3] } }],
      dimensions: 8,
    });
  });

  it("refuses empty, mixed and oversized input, naming it", () => {
    for (const input of ["", [], [""], ["a", [1]], [[]], Array(2049).fill("a"), [-1]]) {
      expect(() => canonical({ model: "m", input }), JSON.stringify(input).slice(0, 40)).toThrow(GatewayError);
    }
    expect(() => canonical({ model: "m", input: "a", encoding_format: "hex" })).toThrow(/encoding_format/);
  });
});

describe("embeddings rendering", () => {
  const list = {
    model: "m",
    data: [{ index: 0, values: [0.5, -0.25, Math.fround(0.1)] }],
    usage: { promptTokens: 2, totalTokens: 2 },
  };

  it("renders floats, or little-endian float32 in base64 that decodes to the same values", () => {
    const floats = renderEmbeddings(list, "float");
    expect(floats).toEqual({
      object: "list",
      data: [{ object: "embedding", index: 0, embedding: list.data[0]!.values }],
      model: "m",
      usage: { prompt_tokens: 2, total_tokens: 2 },
    });
    const encoded = renderEmbeddings(list, "base64").data[0]!.embedding as string;
    const bytes = Buffer.from(encoded, "base64");
    expect(bytes.readFloatLE(0)).toBe(0.5);
    expect([0, 1, 2].map((index) => bytes.readFloatLE(index * 4))).toEqual(list.data[0]!.values);
    expect(encodeBase64Floats([1])).toBe(Buffer.from([0, 0, 0x80, 0x3f]).toString("base64"));
  });
});
