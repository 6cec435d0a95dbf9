import { LuaScript, type Redis } from "@gateway/platform";

export interface RedeemLimits {
  failuresPerAccount: number;
  failuresPerAddress: number;
  windowSeconds: number;
}

export interface RedeemCounting extends RedeemLimits {
  /**
   * The address counter counts every account's failures from the address (the client's own,
   * told by a trusted proxy); false: each account's from it, since the address may be a proxy's
   * that every customer shares.
   */
  addressAlone: boolean;
}

// Takes one attempt from each counter, or none when one is at its limit: then answers the
// milliseconds that counter has left. Atomic, so a burst of concurrent guesses is held to the
// limit too. A counter lives one window from its first attempt.
const reserve = new LuaScript(`
for index, key in ipairs(KEYS) do
  if tonumber(redis.call('GET', key) or '0') >= tonumber(ARGV[index]) then
    return redis.call('PTTL', key)
  end
end
for _, key in ipairs(KEYS) do
  if redis.call('INCR', key) == 1 then redis.call('PEXPIRE', key, ARGV[3]) end
end
return 0
`);

// Gives an attempt back (the code was right, or ledger could not answer), never below zero.
const release = new LuaScript(`
for _, key in ipairs(KEYS) do
  if tonumber(redis.call('GET', key) or '0') > 0 then redis.call('DECR', key) end
end
return 0
`);

/**
 * Counts failed redemptions per account and per client address in Redis: every attempt takes
 * one from both counters before ledger is asked, and only a failure keeps it. At either limit
 * every attempt (a right code too) is refused until the window ends, so guessing 125-bit codes
 * stays hopeless from many accounts on one address or many addresses on one account.
 */
export class RedeemThrottle {
  constructor(
    private readonly redis: Redis,
    private readonly namespace: string,
    private readonly limits: RedeemCounting,
  ) {}

  private keys(accountId: string, address: string) {
    const byAddress = `${this.namespace}:redeem-failures:address:${address}`;
    return [
      `${this.namespace}:redeem-failures:account:${accountId}`,
      this.limits.addressAlone ? byAddress : `${byAddress}:account:${accountId}`,
    ];
  }

  /** Takes an attempt; while either counter is at its limit, answers the seconds until another is allowed instead. */
  async take(accountId: string, address: string): Promise<number | undefined> {
    const { failuresPerAccount, failuresPerAddress, windowSeconds } = this.limits;
    const waitMs = Number(
      await reserve.run(this.redis, {
        keys: this.keys(accountId, address),
        arguments: [String(failuresPerAccount), String(failuresPerAddress), String(windowSeconds * 1000)],
      }),
    );
    if (waitMs === 0) return undefined;
    return Math.max(1, Math.ceil((waitMs > 0 ? waitMs : windowSeconds * 1000) / 1000));
  }

  /** Gives the attempt back: it was no failed guess. */
  async giveBack(accountId: string, address: string): Promise<void> {
    await release.run(this.redis, { keys: this.keys(accountId, address), arguments: [] });
  }
}
