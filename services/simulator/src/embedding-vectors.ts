import { fnv1a } from "./answer.js";

/** One input to embed: text, or token ids (OpenAI only). */
export type EmbeddingInput = string | number[];

interface ModelShape {
  /** The vector size answered when no smaller one is asked for. */
  size: number;
  /** Whether the model can answer shorter vectors (OpenAI `dimensions`, Gemini `outputDimensionality`). */
  resizable: boolean;
}

// The real models' sizes; unknown models get ada-002's shape.
const shapes: Record<string, ModelShape> = {
  "text-embedding-3-small": { size: 1536, resizable: true },
  "text-embedding-3-large": { size: 3072, resizable: true },
  "text-embedding-ada-002": { size: 1536, resizable: false },
  "text-embedding-v3": { size: 1024, resizable: true },
  "text-embedding-v4": { size: 1024, resizable: true },
  "text-embedding-v2": { size: 1536, resizable: false },
  "text-embedding-v1": { size: 1536, resizable: false },
  "gemini-embedding-001": { size: 3072, resizable: true },
  "text-embedding-004": { size: 768, resizable: true },
};

export const embeddingShape = (model: string): ModelShape => shapes[model] ?? { size: 1536, resizable: false };

/** The simulator's token count: four characters a token for text, the ids themselves otherwise. */
export function countInputTokens(input: EmbeddingInput): number {
  return typeof input === "string" ? Math.ceil(input.length / 4) : input.length;
}

/** mulberry32: a tiny seeded generator, so a vector depends on its text alone. */
function generator(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let value = Math.imul(state ^ (state >>> 15), 1 | state);
    value = (value + Math.imul(value ^ (value >>> 7), 61 | value)) ^ value;
    return ((value ^ (value >>> 14)) >>> 0) / 4294967296;
  };
}

function normalised(values: number[]): number[] {
  const length = Math.hypot(...values) || 1;
  return values.map((value) => Math.fround(value / length));
}

/**
 * A unit vector, the same for the same model and input every time. A shorter vector is the
 * full one cut and normalised again, as OpenAI's shortened embeddings are.
 */
export function embeddingVector(model: string, input: EmbeddingInput, dimensions?: number): number[] {
  const key = typeof input === "string" ? `text:${input}` : `tokens:${input.join(",")}`;
  const next = generator(fnv1a(key, fnv1a(model)));
  const size = embeddingShape(model).size;
  const full: number[] = [];
  for (let index = 0; index < size; index++) full.push(next() * 2 - 1);
  return normalised(full.slice(0, dimensions ?? size));
}
