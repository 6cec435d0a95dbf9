import { type Logger, LuaScript, type Redis } from "@gateway/platform";
import { dropLeasesOf } from "./lease-scripts.js";

/** When a router that stopped beating counts as gone, and how long its holdings are kept for that. */
export interface OrphanSettings {
  // A router whose heartbeat is older than this has its leases dropped by the routers still running.
  orphanMs: number;
  // How long a lease entry stays if nobody drops it: the holdings list is kept as long.
  holdMs: number;
}

// Scopes of one dead router dropped per call, so a router that served many accounts never
// holds Redis for long; the rest go with the next beats.
const SCOPES_PER_SWEEP = 100;

// KEYS: the routers' heartbeats (lease prefix → when it counts as gone, on Redis's clock).
// ARGV: this router's prefix, orphanMs. Beats for this router and answers up to four gone ones.
const beatScript = new LuaScript(`
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), ARGV[1])
return redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now, 'LIMIT', 0, 4)
`);

/**
 * A killed router cannot hand its leases' rests back, and each would stay reserved until it
 * lapses (`RESERVATION_TTL_MS`). So every router beats in Redis and lists the scopes (account
 * and key) it took leases in; a router finding another's beat older than `orphanMs` drops that
 * router's lease entries, scope by scope. The requests a dropped lease still held unsettled are
 * then unreserved early, within the overdraft bound of one lease per router and account.
 */
export class LeaseOrphans {
  private readonly beats: string;

  constructor(
    private readonly redis: Redis,
    private readonly namespace: string,
    private readonly prefix: string,
    private readonly settings: OrphanSettings,
    private readonly logger: Logger,
  ) {
    this.beats = `${namespace}:lease-router-beats`;
  }

  /** Lists the scope before a lease is taken in it (sent ahead of the grant, in the same write). */
  track(scope: { accountId: string; keyId: string }): Promise<unknown> {
    return this.redis.sAdd(this.holdingsKey(this.prefix), `${scope.accountId}\t${scope.keyId}`);
  }

  /** Beats for this router, keeps its list, and drops what gone routers left. */
  async beat(): Promise<void> {
    try {
      const [gone] = await Promise.all([
        beatScript.run(this.redis, {
          keys: [this.beats],
          arguments: [this.prefix, String(this.settings.orphanMs)],
        }) as Promise<string[]>,
        this.redis.pExpire(this.holdingsKey(this.prefix), this.settings.holdMs),
      ]);
      for (const router of gone) if (router !== this.prefix) await this.dropLeasesOfGone(router);
    } catch (error) {
      this.logger.warn({ err: error }, "could not beat for admission leases; a gone router's leases lapse later");
    }
  }

  private async dropLeasesOfGone(router: string): Promise<void> {
    const holdings = this.holdingsKey(router);
    const scopes = await this.redis.sPopCount(holdings, SCOPES_PER_SWEEP);
    for (const scope of scopes) {
      const [accountId = "", keyId = ""] = scope.split("\t");
      await dropLeasesOf(this.redis, this.namespace, { accountId, keyId }, `${router}:`);
    }
    if (scopes.length < SCOPES_PER_SWEEP) {
      await this.redis.zRem(this.beats, router);
      this.logger.info(
        { router, scopes: scopes.length },
        "dropped the admission leases of a router that stopped beating",
      );
    }
  }

  private holdingsKey(router: string): string {
    return `${this.namespace}:lease-holdings:{${router}}`;
  }
}
