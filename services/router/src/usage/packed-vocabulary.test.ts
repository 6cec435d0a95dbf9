import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { countTokens as cl100kTokens } from "gpt-tokenizer/encoding/cl100k_base";
import { countTokens as o200kTokens } from "gpt-tokenizer/encoding/o200k_base";
import { describe, expect, it } from "vitest";
import { PackedVocabulary, type TextTokenizer } from "./packed-vocabulary.js";
import { scriptTokenBound } from "./script-token-bound.js";

// The library's own counting, special-token markers as plain text (as the router counts them).
const library: Record<TextTokenizer, (text: string) => number> = {
  o200k_base: (text) => o200kTokens(text, { disallowedSpecial: new Set() }),
  cl100k_base: (text) => cl100kTokens(text, { disallowedSpecial: new Set() }),
};

// The library's reference samples (from OpenAI's tiktoken), with their expected token ids.
function testPlans(name: TextTokenizer): { sample: string; tokens: number }[] {
  const file = readFileSync(createRequire(import.meta.url).resolve("gpt-tokenizer/data/TestPlans.txt"), "utf8");
  return file
    .split("\n\n")
    .map((plan) => /^EncodingName: (.*)\nSample: (.*)\nEncoded: \[(.*)\]/s.exec(plan))
    .filter((match) => match?.[1] === name)
    .map((match) => ({ sample: match![2]!, tokens: match![3]!.split(",").filter((id) => id.trim()).length }));
}

// Repeatable text drawn from many scripts, symbols, whitespace runs, emoji and invalid-looking
// sequences (lone surrogates become U+FFFD on the way to UTF-8, as they do for a vendor).
const alphabet = [
  ..."abcXYZ019 \n\t\r.,;:!?'\"-_/\\(){}[]<>@#$%^&*+=~`|",
  ..."éüßñøÅ统一模型网关ゲートウェイ게이트웨이Шлюзالعربيةहिन्दीไทย",
  "🎉",
  "👍🏽",
  "\u200d",
  "\ud800",
  "<|endoftext|>",
  "'s",
  "   ",
  "0x1F",
];
function randomText(seed: number): string {
  const bytes = createHash("sha512").update(String(seed)).digest();
  let text = "";
  for (const byte of bytes) text += alphabet[byte % alphabet.length];
  return text;
}

describe.each(["o200k_base", "cl100k_base"] as const)("PackedVocabulary %s", (name) => {
  const vocabulary = PackedVocabulary.load(name);

  it("counts the reference samples as OpenAI's tokenizer encodes them", () => {
    const plans = testPlans(name);
    expect(plans.length).toBeGreaterThan(50);
    for (const { sample, tokens } of plans) expect(vocabulary.count(sample), sample).toBe(tokens);
  });

  it("counts mixed-script, symbol and emoji text exactly as the library does", () => {
    for (let seed = 0; seed < 400; seed++) {
      const text = randomText(seed);
      expect(vocabulary.count(text), JSON.stringify(text)).toBe(library[name](text));
    }
  });

  it("counts a long run without spaces (one piece, merged pair by pair) as the library does", () => {
    const run = `${"ab1-".repeat(300)}${"统一模型网关".repeat(100)}`;
    expect(vocabulary.count(run)).toBe(library[name](run));
  });

  it("counts empty text as no tokens", () => {
    expect(vocabulary.count("")).toBe(0);
  });
});

describe("PackedVocabulary on a piece too long to merge", () => {
  it("bounds a long run of symbols from above instead of merging it pair by pair", () => {
    const vocabulary = PackedVocabulary.load("o200k_base");
    const run = "!@#$%^&*()_+-=[]{};:,.<>?".repeat(400);
    expect(vocabulary.count(run)).toBeGreaterThanOrEqual(library.o200k_base(run));
    expect(vocabulary.count(run)).toBe(scriptTokenBound(run));
  });
});
