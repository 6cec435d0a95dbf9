import { setTimeout as sleep } from "node:timers/promises";
import type { Channel } from "@gateway/catalogue";
import { VendorError } from "@gateway/outbound-http";
import { serviceUnavailable } from "@gateway/platform";
import type { ChannelDisabler } from "./channel-disabler.js";
import type { ChannelHealth } from "./channel-health.js";
import type { KeyedChannel, KeyRotation } from "./channel-keys.js";
import { orderChannels } from "./pick-channel.js";
import { backoffDelayMs, isRetryable, type RetrySettings } from "./retry-policy.js";

/** Told about each attempt, for metrics. */
export interface FailoverObserver {
  attemptEnded(channel: Channel, durationMs: number, error?: unknown): void;
  // A retryable failure leads to another attempt; `failover` when it goes to another channel.
  retrying(channel: Channel, failover: boolean): void;
}

/** A key the vendor refused, now disabled; `channelDisabled` when it was the channel's last. */
export interface KeyRefused {
  channel: KeyedChannel;
  error: VendorError;
  channelDisabled: boolean;
}

export interface FailoverContext {
  channels: readonly Channel[];
  health: ChannelHealth;
  keys: { rotation: KeyRotation; disabler: ChannelDisabler };
  retry: RetrySettings;
  signal: AbortSignal;
  startedAt: number;
  // Told which channel each attempt uses, so usage names the one that served.
  onAttempt?: (channel: KeyedChannel) => void;
  // Told each time a key is disabled, so the operator hears of it.
  onKeyRefused?: (refused: KeyRefused) => void;
  observer?: FailoverObserver;
}

function noChannelAvailable(context: FailoverContext) {
  const usable = context.channels.filter((channel) => context.keys.rotation.hasEnabledKey(channel));
  if (usable.length === 0) {
    return serviceUnavailable(
      "No channel can serve this model now: the provider refused every key. Please retry later.",
    );
  }
  const waitMs = Math.min(...usable.map((channel) => context.health.waitMs(channel.name)));
  return serviceUnavailable(
    "Every provider channel for this model is cooling down. Please retry.",
    Math.max(waitMs, 1000),
  );
}

/**
 * Runs `attempt` on the best available channel with its next enabled key. A key the vendor
 * refuses (bad key, spent balance) is disabled and the attempt repeated at once with another
 * key or channel, not counted as an attempt (each refusal takes a key out, so this ends). On a
 * retryable failure it tries again, on the next channel when there is one, with backoff that
 * honours Retry-After, within a bounded number of attempts and a total deadline. The error thrown
 * when all fail is the last attempt's, with the wait its vendor asked for.
 */
export async function runWithFailover<T>(
  context: FailoverContext,
  attempt: (channel: KeyedChannel) => Promise<T>,
): Promise<T> {
  const { health, retry, signal, observer } = context;
  const { rotation, disabler } = context.keys;
  const order = orderChannels(context.channels);
  let lastError: unknown;
  for (let index = 0; index < retry.maxAttempts; ) {
    const channel = order
      .slice(index % order.length)
      .concat(order)
      .find((candidate) => rotation.hasEnabledKey(candidate) && health.tryAcquire(candidate.name));
    const keyed = channel && rotation.next(channel);
    if (!channel || !keyed) throw lastError ?? noChannelAvailable(context);
    context.onAttempt?.(keyed);
    const attemptStartedAt = Date.now();
    try {
      const result = await attempt(keyed);
      observer?.attemptEnded(channel, Date.now() - attemptStartedAt);
      health.recordSuccess(channel.name);
      return result;
    } catch (error) {
      observer?.attemptEnded(channel, Date.now() - attemptStartedAt, error);
      if (!signal.aborted && error instanceof VendorError && error.keyRefusal) {
        // The key's fault, not the channel's: its circuit is left as it was.
        health.release(channel.name);
        disabler.disable(channel.name, keyed.key.id, {
          reason: error.keyRefusal,
          atMs: Date.now(),
          vendorStatus: error.vendorStatus,
          vendorMessage: error.vendorMessage,
        });
        // Kept in service by the operator's choice: the refusal is the answer, as any other vendor error.
        if (!disabler.disablement(channel.name, keyed.key.id)) throw error;
        context.onKeyRefused?.({ channel: keyed, error, channelDisabled: !rotation.hasEnabledKey(channel) });
        lastError = error;
        continue;
      }
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
      index += 1;
      if (index < retry.maxAttempts) observer?.retrying(channel, nextIsOtherChannel);
      if (delay > 0) await sleep(delay, undefined, { signal }).catch(() => undefined);
      if (signal.aborted) throw error;
    }
  }
  throw lastError;
}
