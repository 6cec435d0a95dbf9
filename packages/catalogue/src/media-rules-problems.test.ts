import { describe, expect, it } from "vitest";
import type { ModelEntry } from "./catalogue-schema.js";
import { mediaRulesProblems } from "./media-rules-problems.js";

const images = {
  sizes: ["256x256", "512x512"],
  default_size: "256x256",
  max_n: 1,
  max_prompt_chars: 100,
  qualities: ["standard", "auto"],
  default_quality: "standard",
  styles: [],
  response_format: true,
  prices: { "256x256": { standard: 1 }, "512x512": { standard: 2 } },
};
const entry = (fields: Partial<ModelEntry>): ModelEntry => ({
  id: "m",
  vendor: "openai",
  created: 1,
  context_window: 1,
  endpoints: ["/v1/images/generations"],
  capabilities: [],
  price: { input: 0, output: 0 },
  groups: ["default"],
  images,
  ...fields,
});

describe("mediaRulesProblems", () => {
  it("accepts consistent rules, with 'auto' needing no price of its own", () => {
    expect(mediaRulesProblems(entry({}))).toEqual([]);
  });

  it("accepts a model billed by token with no per-image prices, and refuses one with both or without token prices", () => {
    const byToken = { ...images, prices: {}, image_input_price: 57_600_000 };
    expect(mediaRulesProblems(entry({ images: byToken }))).toEqual([]);
    expect(mediaRulesProblems(entry({ images: { ...byToken, prices: images.prices } }))).toEqual([
      expect.stringContaining("per-image prices too"),
    ]);
    expect(mediaRulesProblems(entry({ images: byToken, price: undefined }))).toEqual([
      expect.stringContaining("sets no token price"),
    ]);
  });

  it("finds missing blocks, missing prices and defaults outside their lists", () => {
    expect(mediaRulesProblems(entry({ images: undefined }))).toEqual([expect.stringContaining("no images rules")]);
    expect(mediaRulesProblems(entry({ endpoints: ["/v1/audio/transcriptions"], images: undefined }))).toEqual([
      expect.stringContaining("no audio rules"),
    ]);
    expect(mediaRulesProblems(entry({ images: { ...images, prices: { "256x256": { standard: 1 } } } }))).toEqual([
      expect.stringContaining("no 512x512 standard price"),
    ]);
    expect(mediaRulesProblems(entry({ images: { ...images, default_size: "1024x1024" } }))).toEqual([
      expect.stringContaining("default_size"),
    ]);
  });

  it("gives every size of an aspect-ratio model its ratio, and no ratio to a size it lacks", () => {
    const ratios = { "256x256": "1:1", "512x512": "1:1" };
    expect(mediaRulesProblems(entry({ images: { ...images, aspect_ratios: ratios } }))).toEqual([]);
    expect(mediaRulesProblems(entry({ images: { ...images, aspect_ratios: { "256x256": "1:1" } } }))).toEqual([
      expect.stringContaining("no ratio for 512x512"),
    ]);
    expect(
      mediaRulesProblems(entry({ images: { ...images, aspect_ratios: { ...ratios, "1408x768": "16:9" } } })),
    ).toEqual([expect.stringContaining("1408x768, which is not one of sizes")]);
  });

  it("ties edit rules to the edits endpoint both ways", () => {
    const edits = { formats: ["png" as const], max_bytes: 1, max_images: 1, square: true };
    expect(mediaRulesProblems(entry({ endpoints: ["/v1/images/generations", "/v1/images/edits"] }))).toEqual([
      expect.stringContaining("no images.edits rules"),
    ]);
    expect(mediaRulesProblems(entry({ images: { ...images, edits } }))).toEqual([
      expect.stringContaining("does not list"),
    ]);
  });
});
