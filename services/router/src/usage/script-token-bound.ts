// A tokenizer-free count that never falls below what a byte-level BPE (OpenAI, Anthropic, xAI,
// DeepSeek, Qwen, Kimi) or a SentencePiece model with byte fallback (Gemini) makes of a text:
// every token of theirs is at least one UTF-8 byte, so a text's bytes bound its tokens. Nothing
// tighter holds for text drawn at random, which an attacker may send: random lowercase letters
// take up to a token each in o200k and cl100k, and random text from any other script, Han and
// Hangul included, comes within a few percent of its bytes. The one saving: a single space
// before an ASCII letter is free, as every such vocabulary has a token for a space and a
// letter (the pair merges unless the letter has already merged with the next one, a saving
// either way). Natural text takes far fewer tokens (English ~4 bytes a token, Chinese ~1 a
// character against 3 bytes): exact counting (text-tokens.ts) serves OpenAI's encodings, and
// this bound the rest. script-token-bound.test.ts checks it against o200k_base and
// cl100k_base over text generated from every Unicode script.

const isLetterCode = (code: number) => (code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a);
const isHighSurrogate = (code: number) => code >= 0xd800 && code <= 0xdbff;
const isLowSurrogate = (code: number) => code >= 0xdc00 && code <= 0xdfff;

/** Tokens the text costs at most: its UTF-8 bytes less its spaces before ASCII letters; linear and allocation-free. */
export function scriptTokenBound(text: string): number {
  let tokens = 0;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code < 0x80) {
      if (code !== 0x20 || !isLetterCode(text.charCodeAt(index + 1))) tokens += 1;
    } else if (code < 0x800) {
      tokens += 2;
    } else if (isHighSurrogate(code) && isLowSurrogate(text.charCodeAt(index + 1))) {
      tokens += 4;
      index += 1;
    } else {
      // A lone surrogate reaches a vendor as U+FFFD: 3 bytes, as every other BMP character.
      tokens += 3;
    }
  }
  return tokens;
}
