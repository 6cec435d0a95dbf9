import { type ConversationMessage, promptTokensOf } from "./answer.js";
import { type CachePrefix, PrefixHash } from "./prompt-cache.js";

// Automatic prompt caching as OpenAI, DeepSeek, Qwen, Kimi and Gemini (implicit caching) do it: no markers; a prompt of at
// least 1024 tokens is cached in 128-token steps, and a later prompt sharing a prefix reads it.
// https://platform.openai.com/docs/guides/prompt-caching

const minimumTokens = 1024;
const stepTokens = 128;
const ttlMs = 5 * 60_000;

/** The prompt's cacheable prefixes: one at every 128-token step from 1024 tokens on. */
export function automaticPrefixes(messages: ConversationMessage[]): CachePrefix[] {
  const text = messages.map((message) => `${message.role}\n${message.parts.join("")}\n`).join("");
  const prefixes: CachePrefix[] = [];
  const hash = new PrefixHash();
  const stepCharacters = promptCharactersOf(stepTokens);
  let hashedUpTo = 0;
  for (let end = stepCharacters; end <= text.length; end += stepCharacters) {
    const key = hash.add(text.slice(hashedUpTo, end));
    hashedUpTo = end;
    const tokens = promptTokensOf(end, 0);
    if (tokens >= minimumTokens) prefixes.push({ key, tokens, ttlMs });
  }
  return prefixes;
}

/** How many characters the simulator counts as `tokens` tokens (four a token, as promptTokensOf counts). */
const promptCharactersOf = (tokens: number) => tokens * 4;
