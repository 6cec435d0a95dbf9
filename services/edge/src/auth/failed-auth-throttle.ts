import { GatewayError } from "@gateway/shared";

export interface ThrottleSettings {
  // Failed keys one address may present per window before it must wait.
  maxFailures: number;
  windowMs: number;
  // Addresses remembered at once; the oldest are forgotten first, so a flood of addresses cannot grow memory.
  maxAddresses: number;
}

const defaults: ThrottleSettings = { maxFailures: 10, windowMs: 60_000, maxAddresses: 10_000 };

/**
 * Slows down key guessing: after `maxFailures` failed keys in one window from one address,
 * that address is refused until the window ends, before ledger is asked. Counted in this edge
 * process only, so with several edge replicas an address gets that many per replica.
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

  /** Throws a 429 while the address has used up its failures in the current window. */
  check(address: string): void {
    const window = this.current(address);
    if (!window || window.failures < this.settings.maxFailures) return;
    const waitMs = window.startedAt + this.settings.windowMs - this.now();
    throw new GatewayError(
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
