import type { IncomingHttpHeaders } from "node:http";

// What a client is told to wait when the vendor says nothing.
const DEFAULT_RETRY_AFTER_MS = 1_000;
// The longest wait passed on: the official SDKs ignore a longer retry-after (openai's waits at most
// 60 s), and a vendor asking for more (a daily quota) is not a hint any client retries on.
export const MAX_RETRY_AFTER_MS = 60_000;

const header = (headers: IncomingHttpHeaders, name: string) => {
  const value = headers[name];
  return typeof value === "string" ? value : undefined;
};

const positive = (milliseconds: number) =>
  Number.isFinite(milliseconds) && milliseconds > 0 ? milliseconds : undefined;

/** `retry-after`: delay-seconds (OpenAI, Anthropic, xAI) or an HTTP date. */
function retryAfterHeaderMs(value: string | undefined, now: number): number | undefined {
  if (value === undefined || value.trim() === "") return undefined;
  const seconds = Number(value);
  return Number.isNaN(seconds) ? positive(Date.parse(value) - now) : positive(seconds * 1000);
}

/** Anthropic's rate-limit headers: the latest reset (RFC 3339) of the limits it says are used up. */
function anthropicResetMs(headers: IncomingHttpHeaders, now: number): number | undefined {
  const prefix = "anthropic-ratelimit-";
  let latest: number | undefined;
  for (const name of Object.keys(headers)) {
    if (!name.startsWith(prefix) || !name.endsWith("-remaining") || header(headers, name) !== "0") continue;
    const reset = Date.parse(header(headers, name.replace(/-remaining$/, "-reset")) ?? "");
    const wait = positive(reset - now);
    if (wait !== undefined && (latest === undefined || wait > latest)) latest = wait;
  }
  return latest;
}

/** Gemini's (Google's) `error.details[]` RetryInfo: `retryDelay` as a protobuf Duration, "26s" or "26.5s". */
function googleRetryInfoMs(body: unknown): number | undefined {
  const details = (body as { error?: { details?: unknown } } | undefined)?.error?.details;
  if (!Array.isArray(details)) return undefined;
  for (const detail of details) {
    const { "@type": type, retryDelay } = (detail ?? {}) as { "@type"?: unknown; retryDelay?: unknown };
    if (type !== "type.googleapis.com/google.rpc.RetryInfo" || typeof retryDelay !== "string") continue;
    const seconds = /^(\d+(?:\.\d+)?)s$/.exec(retryDelay)?.[1];
    if (seconds !== undefined) return positive(Number(seconds) * 1000);
  }
  return undefined;
}

/**
 * How long the vendor asked us to wait before trying again, in whole milliseconds, from the
 * first of: `retry-after-ms`, `retry-after`, Anthropic's used-up limits' resets, Gemini's
 * RetryInfo. A second when it said nothing; never more than MAX_RETRY_AFTER_MS.
 */
export function vendorRetryAfterMs(headers: IncomingHttpHeaders, body: unknown, now = Date.now()): number {
  const asked =
    positive(Number(header(headers, "retry-after-ms"))) ??
    retryAfterHeaderMs(header(headers, "retry-after"), now) ??
    anthropicResetMs(headers, now) ??
    googleRetryInfoMs(body) ??
    DEFAULT_RETRY_AFTER_MS;
  return Math.min(Math.ceil(asked), MAX_RETRY_AFTER_MS);
}
