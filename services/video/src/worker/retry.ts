import { setTimeout as sleep } from "node:timers/promises";
import { VendorCallError } from "../vendor/openai-videos-client.js";

/**
 * Runs a vendor call up to `attempts` times, waiting base, 2×base, … between tries, but only
 * while the failure is one a retry can fix (429, 5xx, unreachable). The last failure is thrown.
 */
export async function withRetries<T>(
  work: () => Promise<T>,
  options: { attempts: number; baseDelayMs: number; signal: AbortSignal },
): Promise<T> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await work();
    } catch (error) {
      const retryable = error instanceof VendorCallError && error.retryable;
      if (!retryable || attempt >= options.attempts || options.signal.aborted) throw error;
      await sleep(options.baseDelayMs * 2 ** (attempt - 1), undefined, { signal: options.signal });
    }
  }
}
