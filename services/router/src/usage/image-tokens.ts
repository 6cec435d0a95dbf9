import type { ImageDimensions } from "../media/image-dimensions.js";

// How a vendor counts one input image, from its published rules. Each rule answers for an
// image of unknown size (a remote URL at admission) with the most an image can cost.
export type ImageTokenRule =
  // OpenAI's gpt-4o family: fit in 2048x2048, shortest side down to 768, then base + per_tile per 512-px tile.
  | { rule: "tiles"; base: number; per_tile: number }
  // OpenAI's gpt-4.1-mini/o4-mini and Qwen-VL: one patch per patch_px square, at most max_patches, times multiplier.
  | { rule: "patches"; patch_px: number; max_patches: number; multiplier: number }
  // Anthropic: fit in 1568 px on the long edge and ~1600 tokens, then width x height / 750.
  | { rule: "anthropic" }
  // Gemini: 258 tokens when both sides are at most 384 px, else 258 per tile (cropped tiles of up to 768 px).
  | { rule: "gemini" };

/** The rule of a vendor protocol when the catalogue names none for the model. */
export const protocolImageRule: Record<"openai-compatible" | "anthropic" | "gemini", ImageTokenRule> = {
  "openai-compatible": { rule: "tiles", base: 85, per_tile: 170 },
  anthropic: { rule: "anthropic" },
  gemini: { rule: "gemini" },
};

const openAiLargestTiles = 8; // 2048x768 after the resize: 4 x 2 tiles
const anthropicLongEdge = 1568;
const anthropicMaxTokens = 1600;
const anthropicPixelsPerToken = 750;
const geminiTileTokens = 258;
const geminiSmallSide = 384;
// Gemini publishes no size limit; an unknown image is taken as 3072x3072, 16 tiles.
const geminiLargestTiles = 16;

function openAiTiles({ width, height }: ImageDimensions): number {
  const fit = Math.min(1, 2048 / Math.max(width, height));
  const fitted = { width: width * fit, height: height * fit };
  const shorten = Math.min(1, 768 / Math.min(fitted.width, fitted.height));
  return Math.ceil((fitted.width * shorten) / 512) * Math.ceil((fitted.height * shorten) / 512);
}

function anthropicTokens({ width, height }: ImageDimensions): number {
  const scale = Math.min(
    1,
    anthropicLongEdge / Math.max(width, height),
    Math.sqrt((anthropicMaxTokens * anthropicPixelsPerToken) / (width * height)),
  );
  return Math.min(anthropicMaxTokens, Math.ceil((width * scale * height * scale) / anthropicPixelsPerToken));
}

function geminiTiles({ width, height }: ImageDimensions): number {
  if (width <= geminiSmallSide && height <= geminiSmallSide) return 1;
  // The crop unit follows the shorter side (between 256 and 768 px), so a long thin image takes many tiles.
  const unit = Math.min(768, Math.max(256, Math.floor(Math.min(width, height) / 1.5)));
  return Math.ceil(width / unit) * Math.ceil(height / unit);
}

/** Tokens one image costs under the rule; `size` undefined means unknown, and the rule's maximum is taken. */
export function imageTokens(rule: ImageTokenRule, size: ImageDimensions | undefined, detail?: string): number {
  switch (rule.rule) {
    case "tiles":
      if (detail === "low") return rule.base;
      return rule.base + rule.per_tile * (size ? openAiTiles(size) : openAiLargestTiles);
    case "patches": {
      const patches = size
        ? Math.ceil(size.width / rule.patch_px) * Math.ceil(size.height / rule.patch_px)
        : rule.max_patches;
      return Math.ceil(Math.min(patches, rule.max_patches) * rule.multiplier);
    }
    case "anthropic":
      return size ? anthropicTokens(size) : anthropicMaxTokens;
    case "gemini":
      return geminiTileTokens * (size ? geminiTiles(size) : geminiLargestTiles);
  }
}
