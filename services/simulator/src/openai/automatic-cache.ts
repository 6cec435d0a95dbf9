// The usage fields of automatic prompt caching (../automatic-prefixes.ts) on OpenAI's protocol.

/** Each vendor's own names for the cached part of its usage. */
export function cachedUsageFields(model: string, promptTokens: number, cached: number): Record<string, unknown> {
  // https://api-docs.deepseek.com/guides/kv_cache
  if (model.startsWith("deepseek")) {
    return {
      prompt_tokens_details: { cached_tokens: cached },
      prompt_cache_hit_tokens: cached,
      prompt_cache_miss_tokens: promptTokens - cached,
    };
  }
  // Kimi reports it at the top of usage as well.
  if (model.startsWith("moonshot") || model.startsWith("kimi")) {
    return { cached_tokens: cached, prompt_tokens_details: { cached_tokens: cached } };
  }
  return { prompt_tokens_details: { cached_tokens: cached } };
}
