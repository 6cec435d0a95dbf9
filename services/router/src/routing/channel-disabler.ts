import type { KeyRefusal } from "@gateway/outbound-http";

/** Why and when a vendor refused a key, as the operator is shown it. */
export interface KeyDisablement {
  reason: KeyRefusal;
  atMs: number;
  vendorStatus: number;
  // The vendor's own words, secrets removed.
  vendorMessage: string;
}

export interface DisabledKey {
  channel: string;
  keyId: string;
  disablement: KeyDisablement;
}

/**
 * Which channel keys the vendors refused; a channel none of whose keys is enabled serves
 * nothing. Every attempt reads it, so reads are synchronous: a persistent implementation (the
 * catalogue store in Postgres, where an operator re-enables a key through the CLI) keeps its
 * copy in memory, writes through, and hears other routers' changes.
 */
export interface ChannelDisabler {
  disablement(channel: string, keyId: string): KeyDisablement | undefined;
  disable(channel: string, keyId: string, disablement: KeyDisablement): void;
  enable(channel: string, keyId: string): void;
  disabledKeys(): Iterable<DisabledKey>;
}

/** This router's own record: refused keys stay disabled until it restarts or `enable` is called. */
export class InMemoryChannelDisabler implements ChannelDisabler {
  private readonly disabled = new Map<string, DisabledKey>();

  disablement(channel: string, keyId: string): KeyDisablement | undefined {
    return this.disabled.get(`${channel}\n${keyId}`)?.disablement;
  }

  disable(channel: string, keyId: string, disablement: KeyDisablement): void {
    this.disabled.set(`${channel}\n${keyId}`, { channel, keyId, disablement });
  }

  enable(channel: string, keyId: string): void {
    this.disabled.delete(`${channel}\n${keyId}`);
  }

  disabledKeys(): Iterable<DisabledKey> {
    return this.disabled.values();
  }
}

/**
 * Leaves every key in service (ROUTER_DISABLE_REFUSED_KEYS=false, new-api's "disable channels
 * automatically" turned off): a refusal reaches the client and is counted, and the next request
 * tries the key again.
 */
export class KeepRefusedKeys implements ChannelDisabler {
  disablement(): undefined {
    return undefined;
  }

  disable(): void {}

  enable(): void {}

  disabledKeys(): Iterable<DisabledKey> {
    return [];
  }
}
