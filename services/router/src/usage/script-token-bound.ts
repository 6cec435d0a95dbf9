// A tokenizer-free count that stays at or above what the vendors' tokenizers (byte-level BPE
// for OpenAI, Anthropic, xAI, DeepSeek, Qwen and Kimi; SentencePiece for Gemini) make of
// natural text, measured against o200k_base and cl100k_base in script-token-bound.test.ts:
// - a run of ASCII letters or digits is cut where digits meet letters and where a capital
//   follows a small letter (tokenizers split there too); a piece that starts a word in small
//   letters (or one capital) costs one token per 3 characters (started), any other piece
//   (digits, capitals, the inner pieces of identifiers, hex and base64) one per 1.5: English
//   words take about 1.3 tokens, so this over-counts prose about 2x, and it holds for code,
//   numbers, hex and base64, where real tokenizers fall to about 1.5 characters a token;
// - a single space before a word is free (tokenizers merge it into the word), other runs
//   of white space cost one token per 4 characters (started);
// - every other ASCII character (punctuation, symbols, line breaks) costs one token;
// - CJK ideographs, kana and hangul cost 1.5 tokens each (real tokenizers: 0.6-1.3 a character;
//   rare ideographs fall back to bytes);
// - anything else costs one token per UTF-16 unit (so two for an emoji).
const cjkTokens = 1.5;

const isDigitCode = (code: number) => code >= 0x30 && code <= 0x39;
const isUpperCode = (code: number) => code >= 0x41 && code <= 0x5a;
const isLowerCode = (code: number) => code >= 0x61 && code <= 0x7a;
const isWordCode = (code: number) => isDigitCode(code) || isUpperCode(code) || isLowerCode(code);
const isSpaceCode = (code: number) => code === 0x20 || code === 0x09;
const isCjkCode = (code: number) =>
  (code >= 0x3040 && code <= 0x30ff) || // kana
  (code >= 0x3400 && code <= 0x4dbf) || // CJK extension A
  (code >= 0x4e00 && code <= 0x9fff) || // CJK unified ideographs
  (code >= 0xac00 && code <= 0xd7af) || // hangul syllables
  (code >= 0xf900 && code <= 0xfaff) || // CJK compatibility ideographs
  (code >= 0x3000 && code <= 0x303f) || // CJK punctuation
  (code >= 0xff00 && code <= 0xffef); // full-width forms

/** Where the piece of letters or digits starting at `start` ends. */
function wordPieceEnd(text: string, start: number): number {
  const digits = isDigitCode(text.charCodeAt(start));
  let index = start + 1;
  let previous = text.charCodeAt(start);
  while (index < text.length) {
    const code = text.charCodeAt(index);
    if (!isWordCode(code) || isDigitCode(code) !== digits || (isLowerCode(previous) && isUpperCode(code))) break;
    previous = code;
    index += 1;
  }
  return index;
}

function wordPieceTokens(text: string, start: number, end: number): number {
  const capitals = end - start > 1 && isUpperCode(text.charCodeAt(start + 1));
  const wordStart = start === 0 || !isWordCode(text.charCodeAt(start - 1));
  const prose = wordStart && !capitals && !isDigitCode(text.charCodeAt(start));
  return Math.ceil((end - start) / (prose ? 3 : 1.5));
}

/** Tokens the text costs at most by the per-script rule above; linear and allocation-free. */
export function scriptTokenBound(text: string): number {
  let tokens = 0;
  let cjk = 0;
  let index = 0;
  while (index < text.length) {
    const code = text.charCodeAt(index);
    if (isWordCode(code)) {
      const start = index;
      index = wordPieceEnd(text, start);
      tokens += wordPieceTokens(text, start, index);
    } else if (isSpaceCode(code)) {
      const start = index;
      while (index < text.length && isSpaceCode(text.charCodeAt(index))) index += 1;
      const length = index - start;
      const beforeWord = index < text.length && isWordCode(text.charCodeAt(index));
      tokens += length === 1 && beforeWord ? 0 : Math.ceil(length / 4);
    } else {
      if (isCjkCode(code)) cjk += 1;
      else tokens += 1;
      index += 1;
    }
  }
  return tokens + Math.ceil(cjk * cjkTokens);
}
