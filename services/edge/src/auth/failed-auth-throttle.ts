import { GatewayError } from "@gateway/platform";

export interface ThrottleSettings {
  // Failed keys one address may present per window; past that its failures are answered 429.
  maxFailures: number;
  windowMs: number;
  // Addresses remembered at once; the oldest are forgotten first, so a flood of addresses cannot grow memory.
  maxAddresses: number;
}

const defaults: ThrottleSettings = { maxFailures: 10, windowMs: 60_000, maxAddresses: 10_000 };

/**
 * Counts failed keys per client address in fixed windows. It never refuses a request by
 * itself: authentication asks it whether an address is over its limit, and then answers that
 * address's invalid keys with a 429 (see authenticate.ts) while its valid keys go on working,
 * because many clients may share one address (an office, or an ingress edge does not trust).
 * Counted in this edge process only, so with several edge replicas an address gets that many
 * per replica.
 */
export class FailedAuthThrottle {
  private readonly windows = new Map<string, { startedAt: number; failures: number }>();
  private readonly settings: ThrottleSettings;

  constructor(
    settings: Partial<ThrottleSettings> = {},
    private readonly now = Date.now,
  ) {
    this.settings = { ...defaults, ...settings };
  }

  /** Whether the address has used up its failures in the current window. */
  isOverLimit(address: string): boolean {
    const window = this.current(address);
    return window !== undefined && window.failures >= this.settings.maxFailures;
  }

  /** The 429 for an invalid key from an address over its limit, with the wait until its window ends. */
  refusal(address: string): GatewayError {
    const window = this.current(address);
    const waitMs = window ? window.startedAt + this.settings.windowMs - this.now() : this.settings.windowMs;
    return new GatewayError(
      429,
      "requests",
      "rate_limit_exceeded",
      `Too many requests with invalid API keys from your address. Please try again in ${Math.ceil(waitMs / 1000)}s.`,
      null,
      waitMs,
    );
  }

  recordFailure(address: string): void {
    const window = this.current(address) ?? { startedAt: this.now(), failures: 0 };
    window.failures += 1;
    // Re-inserting keeps the map in order of last failure, oldest first.
    this.windows.delete(address);
    this.windows.set(address, window);
    if (this.windows.size > this.settings.maxAddresses) {
      this.windows.delete(this.windows.keys().next().value as string);
    }
  }

  private current(address: string) {
    const window = this.windows.get(address);
    if (window && this.now() - window.startedAt >= this.settings.windowMs) {
      this.windows.delete(address);
      return undefined;
    }
    return window;
  }
}
