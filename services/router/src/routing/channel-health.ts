/**
 * A circuit breaker per channel. Consecutive vendor failures open it for a cooldown; after
 * that one request goes through as a probe, and its result closes or reopens the circuit.
 */
export interface CircuitSettings {
  failureThreshold: number;
  cooldownMs: number;
}

interface ChannelState {
  consecutiveFailures: number;
  openUntil: number;
  probing: boolean;
}

/** One channel's circuit as metrics show it: 0 closed, 1 open, 2 half-open (the next request probes). */
export interface CircuitSnapshot {
  channel: string;
  circuit: 0 | 1 | 2;
  consecutiveFailures: number;
}

export class ChannelHealth {
  private readonly states = new Map<string, ChannelState>();

  constructor(
    private readonly settings: CircuitSettings,
    private readonly now: () => number = Date.now,
  ) {}

  private state(channel: string): ChannelState {
    let state = this.states.get(channel);
    if (!state) {
      state = { consecutiveFailures: 0, openUntil: 0, probing: false };
      this.states.set(channel, state);
    }
    return state;
  }

  /** Whether a request may use the channel now; claims the probe when the cooldown is over. */
  tryAcquire(channel: string): boolean {
    const state = this.state(channel);
    if (state.openUntil === 0) return true;
    if (state.probing || this.now() < state.openUntil) return false;
    state.probing = true;
    return true;
  }

  /** Milliseconds until the channel may be probed again (0 when it is usable). */
  waitMs(channel: string): number {
    return Math.max(0, this.state(channel).openUntil - this.now());
  }

  recordSuccess(channel: string): void {
    this.states.set(channel, { consecutiveFailures: 0, openUntil: 0, probing: false });
  }

  recordFailure(channel: string): void {
    const state = this.state(channel);
    state.consecutiveFailures += 1;
    if (state.probing || state.consecutiveFailures >= this.settings.failureThreshold) {
      state.openUntil = this.now() + this.settings.cooldownMs;
    }
    state.probing = false;
  }

  /** Every channel that has served a request so far. */
  *snapshots(): Iterable<CircuitSnapshot> {
    for (const channel of this.states.keys()) yield this.snapshot(channel);
  }

  /** One channel's circuit; closed for a channel that has not served a request yet. */
  snapshot(channel: string): CircuitSnapshot {
    const state = this.states.get(channel);
    if (!state) return { channel, circuit: 0, consecutiveFailures: 0 };
    const circuit = state.openUntil === 0 ? 0 : !state.probing && this.now() < state.openUntil ? 1 : 2;
    return { channel, circuit, consecutiveFailures: state.consecutiveFailures };
  }

  /** A request that ended without a verdict (the client left) gives the probe back. */
  release(channel: string): void {
    this.state(channel).probing = false;
  }
}
