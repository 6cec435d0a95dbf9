import type { Redis } from "@gateway/shared";

export interface RedeemLimits {
  failuresPerAccount: number;
  failuresPerAddress: number;
  windowSeconds: number;
}

/**
 * Counts failed redemptions per account and per client address in Redis, each counter living
 * one window from its first failure: at the limit, every attempt (a right code too) is
 * refused until the window ends, so guessing 125-bit codes stays hopeless even across
 * many accounts from one address or many addresses on one account.
 */
export class RedeemThrottle {
  constructor(
    private readonly redis: Redis,
    private readonly namespace: string,
    private readonly limits: RedeemLimits,
  ) {}

  private keys(accountId: string, address: string) {
    return [
      { key: `${this.namespace}:redeem-failures:account:${accountId}`, limit: this.limits.failuresPerAccount },
      { key: `${this.namespace}:redeem-failures:address:${address}`, limit: this.limits.failuresPerAddress },
    ];
  }

  /** The seconds until another attempt is allowed, while either counter is at its limit; else undefined. */
  async retryAfterSeconds(accountId: string, address: string): Promise<number | undefined> {
    for (const { key, limit } of this.keys(accountId, address)) {
      const failures = Number((await this.redis.get(key)) ?? 0);
      if (failures < limit) continue;
      const ttlMs = await this.redis.pTTL(key);
      return Math.max(1, Math.ceil((ttlMs > 0 ? ttlMs : this.limits.windowSeconds * 1000) / 1000));
    }
    return undefined;
  }

  async recordFailure(accountId: string, address: string): Promise<void> {
    const transaction = this.redis.multi();
    for (const { key } of this.keys(accountId, address)) {
      transaction.incr(key).expire(key, this.limits.windowSeconds, "NX");
    }
    await transaction.exec();
  }
}
