import { describe, expect, it } from "vitest";
import { countInputTokens, embeddingShape, embeddingVector } from "./embedding-vectors.js";

const norm = (values: number[]) => Math.hypot(...values);

describe("simulated embedding vectors", () => {
  it("are unit vectors of the model's size, the same for the same text", () => {
    const vector = embeddingVector("text-embedding-3-small", "hello");
    expect(vector).toHaveLength(1536);
    expect(norm(vector)).toBeCloseTo(1, 5);
    expect(embeddingVector("text-embedding-3-small", "hello")).toEqual(vector);
    expect(embeddingVector("text-embedding-3-small", "hello!")).not.toEqual(vector);
    expect(embeddingVector("text-embedding-3-large", "hello")).toHaveLength(3072);
  });

  it("shortens to the asked size and stays normalised, following the full vector's direction", () => {
    const full = embeddingVector("text-embedding-3-small", "cut me");
    const short = embeddingVector("text-embedding-3-small", "cut me", 8);
    expect(short).toHaveLength(8);
    expect(norm(short)).toBeCloseTo(1, 5);
    expect(Math.sign(short[0]!)).toBe(Math.sign(full[0]!));
  });

  it("treats token ids apart from text, and counts tokens", () => {
    expect(embeddingVector("text-embedding-3-small", [1, 2])).not.toEqual(
      embeddingVector("text-embedding-3-small", "1,2"),
    );
    expect(countInputTokens([5, 6, 7])).toBe(3);
    expect(countInputTokens("abcdefgh!")).toBe(3);
    expect(embeddingShape("unknown-model")).toEqual({ size: 1536, resizable: false });
  });

  it("holds values exactly representable as float32", () => {
    for (const value of embeddingVector("gemini-embedding-001", "f32")) expect(Math.fround(value)).toBe(value);
  });
});
