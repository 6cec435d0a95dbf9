import { GatewayError } from "@gateway/platform";

export interface RetrySettings {
  maxAttempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
  // No new attempt starts (and no wait begins) past this time after the request arrived.
  deadlineMs: number;
}

/**
 * Vendor overload, outage and timeouts arrive as 503 (see outbound-http/map-vendor-error.ts and
 * vendor-client.ts); those may succeed on a retry or another channel. The client's own
 * mistakes (4xx) never will.
 */
export function isRetryable(error: unknown): error is GatewayError {
  return error instanceof GatewayError && error.httpStatus === 503;
}

/** Exponential backoff with full jitter, never shorter than what the vendor asked for. */
export function backoffDelayMs(attempt: number, retryAfterMs: number, settings: RetrySettings, random = Math.random) {
  const ceiling = Math.min(settings.maxDelayMs, settings.baseDelayMs * 2 ** attempt);
  return Math.max(retryAfterMs, Math.round(random() * ceiling));
}
