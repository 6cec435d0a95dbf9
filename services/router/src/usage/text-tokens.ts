import { PackedVocabulary, type TextTokenizer } from "./packed-vocabulary.js";
import { scriptTokenBound } from "./script-token-bound.js";

// Each encoding is read once (o200k ~4 MB packed, ~0.2 s of CPU). Router reads the ones its
// catalogue names at start, so no request's event loop turn pays for it; one a reloaded
// catalogue adds is read on its first use.
const loaded = new Map<TextTokenizer, PackedVocabulary>();

function encoding(name: TextTokenizer): PackedVocabulary {
  let vocabulary = loaded.get(name);
  if (!vocabulary) {
    vocabulary = PackedVocabulary.load(name);
    loaded.set(name, vocabulary);
  }
  return vocabulary;
}

/** Reads these encodings now, before any request needs them. */
export function loadEncodings(names: Iterable<TextTokenizer>): void {
  for (const name of names) encoding(name);
}

// Exact counting of this many characters takes well under 1 ms for prose and Chinese, and up
// to ~10 ms for base64 or hex (every piece merged); past it a request's text is bounded by its
// bytes instead, so one estimate's CPU on the hot path stays bounded.
const exactCharacterBudget = 16_384;

/**
 * Counts one request's text: exactly with the model's encoding while the request's budget of
 * characters lasts, by its bytes (never lower) after it and for other vendors.
 */
export class TextTokenCounter {
  private budget = exactCharacterBudget;

  constructor(private readonly tokenizer: TextTokenizer | undefined) {}

  count(text: string): number {
    if (!this.tokenizer || text.length > this.budget) return scriptTokenBound(text);
    this.budget -= text.length;
    return encoding(this.tokenizer).count(text);
  }
}
