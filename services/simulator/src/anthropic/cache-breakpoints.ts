import { promptTokensOf } from "../answer.js";
import { isRecord } from "../json.js";
import { type CachePrefix, PrefixHash } from "../prompt-cache.js";

// Anthropic's prompt caching: the prompt (tools, then system, then messages) up to each block
// marked cache_control is a cacheable prefix, if it is at least the model's minimum length.
// https://docs.anthropic.com/en/docs/build-with-claude/prompt-caching

const minimumTokens = (model: string) => (model.includes("haiku") ? 2048 : 1024);
const ttlMs = (control: Record<string, unknown>) => (control.ttl === "1h" ? 3_600_000 : 300_000);

/** The text characters and images of a block, counted as the simulator's usage counts them. */
function sizeOf(block: Record<string, unknown>): { characters: number; images: number } {
  if (block.type === "text" && typeof block.text === "string") return { characters: block.text.length, images: 0 };
  if (block.type === "image") return { characters: 0, images: 1 };
  if (block.type !== "tool_result") return { characters: 0, images: 0 };
  if (typeof block.content === "string") return { characters: block.content.length, images: 0 };
  const nested = (Array.isArray(block.content) ? block.content : []).filter(isRecord).map(sizeOf);
  return nested.reduce(
    (sum, size) => ({ characters: sum.characters + size.characters, images: sum.images + size.images }),
    {
      characters: 0,
      images: 0,
    },
  );
}

const blocksOf = (content: unknown): Record<string, unknown>[] =>
  typeof content === "string"
    ? [{ type: "text", text: content }]
    : Array.isArray(content)
      ? content.filter(isRecord)
      : [];

/** Every block of a (validated) Messages body in cache order: tools, system, then each turn's blocks. */
function promptBlocks(body: Record<string, unknown>): Record<string, unknown>[] {
  const tools = Array.isArray(body.tools) ? body.tools.filter(isRecord) : [];
  const turns = Array.isArray(body.messages) ? body.messages.filter(isRecord) : [];
  return [...tools, ...blocksOf(body.system), ...turns.flatMap((turn) => blocksOf(turn.content))];
}

/** The request's cacheable prefixes: one per cache_control breakpoint long enough to cache. */
export function cachePrefixes(body: Record<string, unknown>, model: string): CachePrefix[] {
  const hash = new PrefixHash();
  const prefixes: CachePrefix[] = [];
  let characters = 0;
  let images = 0;
  for (const block of promptBlocks(body)) {
    const { cache_control: control, ...content } = block;
    const size = sizeOf(content);
    characters += size.characters;
    images += size.images;
    const key = hash.add(content);
    const tokens = promptTokensOf(characters, images);
    if (isRecord(control) && tokens >= minimumTokens(model)) prefixes.push({ key, tokens, ttlMs: ttlMs(control) });
  }
  return prefixes;
}
