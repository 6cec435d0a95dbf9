import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { scriptTokenBound } from "./script-token-bound.js";

/** The OpenAI encodings the catalogue may name for a model. */
export type TextTokenizer = "o200k_base" | "cl100k_base";

// gpt-tokenizer's own vocabulary modules keep every token as a JS string, with a Map over them
// and the module's compiled literals: o200k costs ~21 MB of heap for as long as the process
// lives. Read from the package's tiktoken files (one "base64-token rank" line per token)
// and packed into typed arrays, it is ~4 MB and nothing else stays behind.
const requirePackage = createRequire(import.meta.url);

// The same pre-tokenisation the library (and OpenAI's tiktoken) applies before merging.
const splitPatterns = requirePackage("gpt-tokenizer/encodingParams/constants") as Record<string, RegExp>;
const splitPattern: Record<TextTokenizer, RegExp> = {
  o200k_base: splitPatterns.O200K_TOKEN_SPLIT_REGEX!,
  cl100k_base: splitPatterns.CL100K_TOKEN_SPLIT_REGEX!,
};

const space = 0x20;
const newline = 0x0a;

/**
 * Reads a tiktoken file ("base64-token rank" per line, ranks in order) straight into the packed
 * arrays, scanning its bytes: a string per line or a buffer per token, kept until the end,
 * would leave ~25 MB more RSS behind than the vocabulary itself.
 */
function packTokens(file: Buffer): { tokenBytes: Uint8Array; offsets: Uint32Array } {
  // Base64 never decodes to more than three quarters of its length.
  const tokenBytes = Buffer.alloc(Math.ceil(file.length * 0.75));
  const offsets = [0];
  for (let start = 0; start < file.length; ) {
    let end = file.indexOf(newline, start);
    if (end < 0) end = file.length;
    const gap = file.indexOf(space, start);
    if (gap > start && gap < end) {
      const rank = offsets.length - 1;
      if (Number(file.toString("latin1", gap + 1, end)) !== rank)
        throw new Error(`tiktoken file: rank ${rank} out of order`);
      offsets.push(offsets[rank]! + tokenBytes.write(file.toString("latin1", start, gap), offsets[rank]!, "base64"));
    }
    start = end + 1;
  }
  return { tokenBytes: tokenBytes.subarray(0, offsets.at(-1)), offsets: Uint32Array.from(offsets) };
}

const utf8 = new TextEncoder();
const mergedCountsKept = 10_000;
// The merge takes time quadratic in a piece's length; a longer piece (a run of symbols with no
// space, letter or digit: no prose has one) is bounded by its bytes instead, never counted lower.
const longestMergedPiece = 2_048;

// FNV-1a over a byte range: cheap, and spreads the vocabulary's short keys well enough for
// linear probing in a table at most half full.
function hashBytes(bytes: Uint8Array, start: number, end: number): number {
  let hash = 0x811c9dc5;
  for (let i = start; i < end; i++) hash = Math.imul(hash ^ bytes[i]!, 0x01000193);
  return hash >>> 0;
}

/**
 * One encoding's vocabulary as a byte array, token offsets and an open-addressing table of
 * ranks, with the byte-pair merge that counts a text's tokens exactly as the library does
 * (but for pieces over `longestMergedPiece` bytes).
 */
export class PackedVocabulary {
  private readonly tokenBytes: Uint8Array;
  private readonly offsets: Uint32Array;
  // rank + 1 per slot; 0 is an empty slot.
  private readonly slots: Int32Array;
  private readonly mask: number;
  private scratch = new Uint8Array(1024);
  // Counts of pieces that needed merging: prompts repeat their words (Chinese and Japanese text
  // comes as long pieces), and a count is a few bytes; emptied when full rather than ordered.
  private readonly mergedCounts = new Map<string, number>();

  constructor(
    { tokenBytes, offsets }: { tokenBytes: Uint8Array; offsets: Uint32Array },
    private readonly split: RegExp,
  ) {
    this.tokenBytes = tokenBytes;
    this.offsets = offsets;
    const count = offsets.length - 1;
    this.slots = new Int32Array(2 ** Math.ceil(Math.log2(count * 2)));
    this.mask = this.slots.length - 1;
    for (let rank = 0; rank < count; rank++) {
      const [start, end] = [offsets[rank]!, offsets[rank + 1]!];
      if (end > start) this.slots[this.freeSlot(start, end)] = rank + 1;
    }
  }

  static load(name: TextTokenizer): PackedVocabulary {
    const file = readFileSync(requirePackage.resolve(`gpt-tokenizer/data/${name}.tiktoken`));
    return new PackedVocabulary(packTokens(file), splitPattern[name]);
  }

  /** The tokens of `text`, special-token markers counted as the plain text they are to a vendor. */
  count(text: string): number {
    let tokens = 0;
    for (const [piece] of text.matchAll(this.split)) tokens += this.pieceTokens(piece);
    return tokens;
  }

  private pieceTokens(piece: string): number {
    if (this.scratch.length < piece.length * 3) this.scratch = new Uint8Array(piece.length * 3);
    const { written } = utf8.encodeInto(piece, this.scratch);
    if (this.rankOf(this.scratch, 0, written) >= 0) return 1;
    if (written > longestMergedPiece) return scriptTokenBound(piece);
    let count = this.mergedCounts.get(piece);
    if (count === undefined) {
      count = this.mergedParts(written);
      if (this.mergedCounts.size >= mergedCountsKept) this.mergedCounts.clear();
      this.mergedCounts.set(piece, count);
    }
    return count;
  }

  /** The byte-pair merge: join the adjacent pair of lowest rank (leftmost on a tie) until none is a token. */
  private mergedParts(length: number): number {
    // starts[i] is where part i begins; pairRanks[i] the rank of parts i and i + 1 joined (-1: none).
    const starts = new Int32Array(length + 1);
    const pairRanks = new Int32Array(length);
    let parts = length;
    for (let i = 0; i <= parts; i++) starts[i] = i;
    for (let i = 0; i < parts; i++) pairRanks[i] = this.pairRank(starts, parts, i);
    while (parts > 1) {
      let lowest = -1;
      let lowestRank = 0x7fffffff;
      for (let i = 0; i < parts - 1; i++) {
        const rank = pairRanks[i]!;
        if (rank >= 0 && rank < lowestRank) {
          lowest = i;
          lowestRank = rank;
        }
      }
      if (lowest < 0) break;
      starts.copyWithin(lowest + 1, lowest + 2, parts + 1);
      pairRanks.copyWithin(lowest, lowest + 1, parts);
      parts--;
      pairRanks[lowest] = this.pairRank(starts, parts, lowest);
      if (lowest > 0) pairRanks[lowest - 1] = this.pairRank(starts, parts, lowest - 1);
    }
    return parts;
  }

  /** The rank of part `i` joined with the next one, or -1 (none, or no such token). */
  private pairRank(starts: Int32Array, parts: number, i: number): number {
    return i + 1 < parts ? this.rankOf(this.scratch, starts[i]!, starts[i + 2]!) : -1;
  }

  private rankOf(bytes: Uint8Array, start: number, end: number): number {
    for (let slot = hashBytes(bytes, start, end) & this.mask; ; slot = (slot + 1) & this.mask) {
      const stored = this.slots[slot]!;
      if (stored === 0) return -1;
      if (this.holds(stored - 1, bytes, start, end)) return stored - 1;
    }
  }

  private freeSlot(start: number, end: number): number {
    let slot = hashBytes(this.tokenBytes, start, end) & this.mask;
    while (this.slots[slot] !== 0) slot = (slot + 1) & this.mask;
    return slot;
  }

  private holds(rank: number, bytes: Uint8Array, start: number, end: number): boolean {
    const from = this.offsets[rank]!;
    if (this.offsets[rank + 1]! - from !== end - start) return false;
    for (let i = 0; i < end - start; i++) if (this.tokenBytes[from + i] !== bytes[start + i]) return false;
    return true;
  }
}
