import { createHash } from "node:crypto";

// A vendor's prompt cache as the simulator models it: a prompt prefix seen before (and still
// alive) is read from the cache. Vendors differ in which prefixes they cache (Anthropic: up to
// each cache_control breakpoint; OpenAI, DeepSeek, Gemini, Qwen: automatically) and in how they
// report it; each vendor's handler turns a prompt into prefixes and reports in its own fields.

/** One cacheable prefix of a prompt: what identifies it and how many prompt tokens it spans. */
export interface CachePrefix {
  key: string;
  tokens: number;
  /** How long the vendor keeps it after a use. */
  ttlMs: number;
}

export interface CacheUse {
  /** Prompt tokens read from the cache. */
  read: number;
  /** Prompt tokens written to it (vendors that bill writes: Anthropic). */
  written: number;
}

/** Bounded so a long-running simulator cannot grow without end. */
const maximumEntries = 10_000;

export class PromptCache {
  private readonly expiries = new Map<string, number>();

  /**
   * Reads the longest live prefix, then stores every prefix (refreshing what was read). The
   * longest prefix beyond what was read counts as written.
   */
  use(scope: string, prefixes: readonly CachePrefix[], now = Date.now()): CacheUse {
    const scoped = prefixes.map((prefix) => ({ ...prefix, key: `${scope}\n${prefix.key}` }));
    let read = 0;
    for (const prefix of scoped) {
      const expiry = this.expiries.get(prefix.key);
      if (expiry !== undefined && expiry > now) read = Math.max(read, prefix.tokens);
    }
    const longest = Math.max(0, ...scoped.map((prefix) => prefix.tokens));
    for (const prefix of scoped) this.remember(prefix.key, now + prefix.ttlMs);
    return { read, written: Math.max(0, longest - read) };
  }

  private remember(key: string, expiry: number): void {
    this.expiries.delete(key);
    this.expiries.set(key, expiry);
    if (this.expiries.size > maximumEntries) this.expiries.delete(this.expiries.keys().next().value!);
  }
}

/** Grows a hash block by block, so each block boundary names the whole prefix before it. */
export class PrefixHash {
  private readonly hash = createHash("sha256");

  add(piece: unknown): string {
    this.hash.update(JSON.stringify(piece));
    return this.hash.copy().digest("base64");
  }
}
