import { describe, expect, it } from "vitest";
import { imageTokens, protocolImageRule } from "./image-tokens.js";

const openAi = protocolImageRule["openai-compatible"];
const anthropic = protocolImageRule.anthropic;
const gemini = protocolImageRule.gemini;
const size = (width: number, height: number) => ({ width, height });

describe("imageTokens", () => {
  it("counts OpenAI tiles after fitting 2048 px and shortening the short side to 768", () => {
    expect(imageTokens(openAi, size(1024, 1024))).toBe(85 + 170 * 4);
    expect(imageTokens(openAi, size(2048, 4096), "high")).toBe(85 + 170 * 6);
    expect(imageTokens(openAi, size(300, 200))).toBe(85 + 170);
    expect(imageTokens(openAi, size(4096, 4096), "low")).toBe(85);
  });

  it("takes an OpenAI image of unknown size at its largest, 8 tiles", () => {
    expect(imageTokens(openAi, undefined)).toBe(85 + 170 * 8);
    expect(imageTokens({ rule: "tiles", base: 2833, per_tile: 5667 }, undefined)).toBe(2833 + 5667 * 8);
  });

  it("counts patches up to the model's cap, times its multiplier", () => {
    const rule = { rule: "patches", patch_px: 32, max_patches: 1536, multiplier: 1.62 } as const;
    expect(imageTokens(rule, size(1024, 1024))).toBe(Math.ceil(1024 * 1.62));
    expect(imageTokens(rule, size(4000, 4000))).toBe(Math.ceil(1536 * 1.62));
    expect(imageTokens(rule, undefined)).toBe(Math.ceil(1536 * 1.62));
  });

  it("counts Anthropic images as width x height / 750 after the resize, at most ~1600", () => {
    expect(imageTokens(anthropic, size(1000, 1000))).toBe(1334);
    expect(imageTokens(anthropic, size(200, 200))).toBe(54);
    expect(imageTokens(anthropic, size(8000, 1000))).toBeLessThanOrEqual(1600);
    expect(imageTokens(anthropic, size(8000, 1000))).toBeGreaterThan(300);
    expect(imageTokens(anthropic, undefined)).toBe(1600);
  });

  it("counts Gemini images as 258 when small, else 258 per tile", () => {
    expect(imageTokens(gemini, size(384, 384))).toBe(258);
    expect(imageTokens(gemini, size(1024, 1024))).toBe(258 * 4);
    expect(imageTokens(gemini, size(3000, 400))).toBeGreaterThan(258 * 4);
    expect(imageTokens(gemini, undefined)).toBe(258 * 16);
  });
});
