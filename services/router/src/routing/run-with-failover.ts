import { setTimeout as sleep } from "node:timers/promises";
import type { Channel } from "@gateway/catalogue/catalogue";
import { serviceUnavailable } from "@gateway/shared";
import type { ChannelHealth } from "./channel-health.js";
import { orderChannels } from "./pick-channel.js";
import { backoffDelayMs, isRetryable, type RetrySettings } from "./retry-policy.js";

/** Told about each attempt, for metrics. */
export interface FailoverObserver {
  attemptEnded(channel: Channel, durationMs: number, error?: unknown): void;
  // A retryable failure leads to another attempt; `failover` when it goes to another channel.
  retrying(channel: Channel, failover: boolean): void;
}

export interface FailoverContext {
  channels: readonly Channel[];
  health: ChannelHealth;
  retry: RetrySettings;
  signal: AbortSignal;
  startedAt: number;
  // Told which channel each attempt uses, so usage names the one that served.
  onAttempt?: (channel: Channel) => void;
  observer?: FailoverObserver;
}

function allCoolingDown(context: FailoverContext) {
  const waitMs = Math.min(...context.channels.map((channel) => context.health.waitMs(channel.name)));
  return serviceUnavailable(
    "Every provider channel for this model is cooling down. Please retry.",
    Math.max(waitMs, 1000),
  );
}

/**
 * Runs `attempt` on the best available channel, and on a retryable failure tries again,
 * on the next channel when there is one, with backoff that honours Retry-After, within a
 * bounded number of attempts and a total deadline. The error thrown when all fail is the last
 * attempt's, with the wait its vendor asked for.
 */
export async function runWithFailover<T>(
  context: FailoverContext,
  attempt: (channel: Channel) => Promise<T>,
): Promise<T> {
  const { health, retry, signal, observer } = context;
  const order = orderChannels(context.channels);
  let lastError: unknown;
  for (let index = 0; index < retry.maxAttempts; index += 1) {
    const channel = order
      .slice(index % order.length)
      .concat(order)
      .find((candidate) => health.tryAcquire(candidate.name));
    if (!channel) throw lastError ?? allCoolingDown(context);
    context.onAttempt?.(channel);
    const attemptStartedAt = Date.now();
    try {
      const result = await attempt(channel);
      observer?.attemptEnded(channel, Date.now() - attemptStartedAt);
      health.recordSuccess(channel.name);
      return result;
    } catch (error) {
      observer?.attemptEnded(channel, Date.now() - attemptStartedAt, error);
      if (signal.aborted || !isRetryable(error)) {
        health.release(channel.name);
        throw error;
      }
      health.recordFailure(channel.name);
      lastError = error;
      const nextIsOtherChannel = order.length > 1;
      const delay = nextIsOtherChannel ? 0 : backoffDelayMs(index, error.retryAfterMs, retry);
      // A vendor asking for a longer wait than router's own backoff is not waited out here: the
      // client gets the vendor's wait as its retry-after, holding no connection or slot meanwhile.
      if (delay > retry.maxDelayMs || Date.now() + delay - context.startedAt > retry.deadlineMs) break;
      if (index + 1 < retry.maxAttempts) observer?.retrying(channel, nextIsOtherChannel);
      if (delay > 0) await sleep(delay, undefined, { signal }).catch(() => undefined);
      if (signal.aborted) throw error;
    }
  }
  throw lastError;
}
