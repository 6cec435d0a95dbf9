import { randomUUID } from "node:crypto";
import type { GroupLimits } from "@gateway/catalogue";
import { GatewayError, type Logger, type Redis } from "@gateway/platform";
import type { Caller } from "@gateway/proto/common/v1/common";
import { giveBackToLeases, grantLease, type LeasedAdmission } from "./lease-scripts.js";
import type { Reservations } from "./reservations.js";

export interface LeaseSettings {
  // The most one lease of one account holds: the overdraft bound's share of each router.
  maxMicros: bigint;
  // How long a lease admits requests before the router takes a fresh one; the unspent rest of
  // an idle account's lease is handed back within this too.
  lifeMs: number;
  // How long a lease's entry stays in Redis if no one settles it (its router died).
  holdMs: number;
}

interface Lease {
  id: string;
  granted: bigint;
  // What this router may still admit from it.
  free: bigint;
  // The worst cases admitted from it: the spend the next lease is sized by.
  admitted: bigint;
  grantedAt: number;
}

interface AccountLeases {
  current?: Lease | undefined;
  // Unspent rests of leases taken out of use, handed back with the next call for the account.
  retired: Map<string, bigint>;
  // Grants in flight for the account (the account is forgotten only with none).
  granting: number;
}

/**
 * Admission from leases: this router takes, in one Redis call, a slice of an account's spendable
 * balance sized to twice what its previous slice admitted (at most `maxMicros`), admits each
 * request's worst case from it without a round trip, takes the next slice ahead of need (half of
 * one spent or half its life gone; at once when it is `lifeMs` old), and hands the unspent rest
 * back then, when the account goes idle, and on drain. A lease is a reservation like any other, so
 * no other router can spend it; ledger gives back each request's worst case when it commits the
 * charge.
 */
export class AdmissionLeases {
  private readonly accounts = new Map<string, AccountLeases>();
  private readonly prefix = `lease:${randomUUID()}`;
  private serial = 0;
  private readonly timer: NodeJS.Timeout;
  // Leases being taken ahead of need, which a drain waits for so it can hand their rest back too.
  private readonly renewals = new Set<Promise<void>>();

  constructor(
    private readonly redis: Redis,
    private readonly reservations: Reservations,
    private readonly namespace: string,
    private readonly settings: LeaseSettings,
    private readonly logger: Logger,
  ) {
    this.timer = setInterval(() => this.sweep(), Math.max(1, settings.lifeMs / 2));
    this.timer.unref();
  }

  /**
   * Whether a lease may admit the request: limits and spending caps must be exact across routers,
   * so a request under either keeps its Redis round trip (admission.ts).
   */
  covers(caller: Caller, limits: GroupLimits): boolean {
    return (
      caller.keySpendCapMicros === undefined &&
      !limits.requests_per_minute &&
      !limits.tokens_per_minute &&
      !limits.concurrent_requests
    );
  }

  /** Admits `costMicros` for the caller from this router's lease, or throws the 429 (503) `reserve` would. */
  async take(caller: Caller, costMicros: bigint): Promise<LeasedAdmission> {
    const account = this.accountOf(caller.accountId);
    const lease = account.current;
    if (lease && this.usable(lease) && lease.free >= costMicros) {
      lease.free -= costMicros;
      lease.admitted += costMicros;
      const halfSpent = lease.free * 2n < lease.granted;
      const halfLived = Date.now() - lease.grantedAt >= this.settings.lifeMs / 2;
      if ((halfSpent || halfLived) && account.granting === 0) this.renewAhead(caller, account, costMicros);
      return { id: lease.id, micros: costMicros };
    }
    if (lease) this.retire(account);
    const granted = await this.grant(caller, account, costMicros, lease?.admitted ?? 0n);
    return { id: granted.id, micros: costMicros };
  }

  /** Hands back every lease's unspent rest (router draining). */
  async close(): Promise<void> {
    clearInterval(this.timer);
    await Promise.all(this.renewals);
    const returning: Promise<void>[] = [];
    for (const [accountId, account] of this.accounts) {
      if (account.current) this.retire(account);
      returning.push(this.giveBack(accountId, account));
    }
    await Promise.all(returning);
  }

  private accountOf(accountId: string): AccountLeases {
    let account = this.accounts.get(accountId);
    if (!account) {
      account = { retired: new Map(), granting: 0 };
      this.accounts.set(accountId, account);
    }
    return account;
  }

  private usable(lease: Lease): boolean {
    return Date.now() - lease.grantedAt < this.settings.lifeMs;
  }

  private retire(account: AccountLeases): void {
    const lease = account.current;
    if (!lease) return;
    account.current = undefined;
    if (lease.free > 0n) account.retired.set(lease.id, (account.retired.get(lease.id) ?? 0n) + lease.free);
  }

  // Takes the next lease in the background; a refusal keeps the current one in use.
  private renewAhead(caller: Caller, account: AccountLeases, least: bigint): void {
    const renewal = this.grant(caller, account, 0n, account.current?.admitted ?? 0n, least).then(
      () => undefined,
      (error: unknown) => {
        // A refusal (balance short) or Redis's failure (logged by the reservations) keeps the current lease.
        if (!(error instanceof GatewayError)) {
          this.logger.warn({ err: error, account_id: caller.accountId }, "could not renew an admission lease");
        }
      },
    );
    this.renewals.add(renewal);
    void renewal.finally(() => this.renewals.delete(renewal));
  }

  /**
   * Takes a lease sized by `recent` (what the previous one admitted), at least `take + least`,
   * admitting `take` from it at once, and makes it the account's current lease.
   */
  private async grant(
    caller: Caller,
    account: AccountLeases,
    take: bigint,
    recent: bigint,
    least = take,
  ): Promise<Lease> {
    const id = `${this.prefix}:${++this.serial}`;
    const floor = take > least ? take : least;
    const sized = 2n * recent < this.settings.maxMicros ? 2n * recent : this.settings.maxMicros;
    const wanted = sized > floor ? sized : floor;
    let granted = 0n;
    let returned = account.retired;
    account.retired = new Map();
    account.granting += 1;
    try {
      await this.reservations.reserveThrough(caller, floor, async ({ keys, arguments: [, , now] }) => {
        const sending = returned;
        // Sent once: a retry (the balance was loaded meanwhile) must not hand the same back twice.
        returned = new Map();
        const answer = await grantLease(
          this.redis,
          { balance: keys[0]!, reservations: keys[1]!, expiries: keys[2]! },
          { id, least: floor, wanted, now: Number(now), expiresAt: Number(now) + this.settings.holdMs },
          sending,
        );
        granted = answer.granted;
        return [answer.outcome, answer.available.toString()];
      });
    } finally {
      account.granting -= 1;
    }
    const lease = { id, granted, free: granted - take, admitted: take, grantedAt: Date.now() };
    this.retire(account);
    account.current = lease;
    return lease;
  }

  private async giveBack(accountId: string, account: AccountLeases): Promise<void> {
    if (account.retired.size === 0) return;
    const returning = account.retired;
    account.retired = new Map();
    try {
      await giveBackToLeases(this.redis, this.namespace, accountId, returning);
    } catch (error) {
      // Not given back, the rest stays reserved until the lease lapses: never spendable twice.
      this.logger.warn({ err: error, account_id: accountId }, "could not give back a lease's rest; it lapses");
    }
  }

  // Takes stale leases out of use and hands back their rest; forgets idle accounts.
  private sweep(): void {
    for (const [accountId, account] of this.accounts) {
      if (account.current && !this.usable(account.current)) this.retire(account);
      if (account.granting > 0) continue;
      void this.giveBack(accountId, account);
      if (!account.current) this.accounts.delete(accountId);
    }
  }
}
