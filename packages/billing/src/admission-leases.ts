import { randomUUID } from "node:crypto";
import type { GroupLimits } from "@gateway/catalogue";
import { GatewayError, type Logger, type Redis } from "@gateway/platform";
import type { Caller } from "@gateway/proto/common/v1/common";
import { type GrantRequest, type LeaseSettings, takeLease } from "./lease-grant.js";
import { sliceAdmits, sliceHalfSpent } from "./lease-limits.js";
import { LeaseOrphans } from "./lease-orphans.js";
import {
  admitFrom,
  holdsUnspentLimits,
  type Lease,
  type LeasedTake,
  leaseUsable,
  newScope,
  retire,
  type Scope,
  scopeKey,
  takeRests,
} from "./lease-scope.js";
import { giveBackToLeases, hasRests } from "./lease-scripts.js";
import type { RateLimiter } from "./rate-limits.js";
import type { Reservations } from "./reservations.js";

export type { LeaseSettings } from "./lease-grant.js";
export type { LeasedTake } from "./lease-scope.js";

// A refusal every request waiting for the same grant would get too (not one of money or tokens, which depend on its size).
const sharedRefusal = (error: unknown) =>
  error instanceof GatewayError && error.code !== "insufficient_quota" && error.type !== "tokens";

/**
 * Admission from leases: this router takes, in one Redis call, a slice of an account's spendable
 * balance (for a capped key, of the key's room under its cap too) sized to twice what its
 * previous slice admitted (at most `maxMicros`), and, for a limited group, a slice of the key's
 * and account's rate window and the concurrency slots its recent peak used; it admits each
 * request from them without a round trip, takes the next slice ahead of need (half of one spent
 * or half its life gone; at once when it is `lifeMs` old or its window ended), and hands the
 * unspent rest back then, when the scope goes idle, and on drain. Everything a lease holds is
 * counted in Redis when it is taken, so no other router can spend it and no limit is passed;
 * ledger gives back each request's worst case when it commits the charge. A router that stops
 * beating in Redis has its leases dropped by the others (lease-orphans.ts).
 */
export class AdmissionLeases {
  private readonly scopes = new Map<string, Scope>();
  // Request id → the concurrency slot lent to it, until its end gives it back (`release`).
  private readonly lentSlots = new Map<string, { scope: Scope; slot: string }>();
  private readonly prefix = `lease:${randomUUID()}`;
  private serial = 0;
  private closed = false;
  private readonly timer: NodeJS.Timeout;
  private readonly beating: NodeJS.Timeout;
  private readonly orphans: LeaseOrphans;
  // Leases being taken ahead of need, which a drain waits for so it can hand their rest back too.
  private readonly renewals = new Set<Promise<void>>();
  private readonly context;

  constructor(
    private readonly redis: Redis,
    reservations: Reservations,
    rateLimits: RateLimiter,
    private readonly namespace: string,
    private readonly settings: LeaseSettings,
    private readonly logger: Logger,
  ) {
    this.context = { redis, reservations, rateLimits, settings };
    this.timer = setInterval(() => this.sweep(), Math.max(1, settings.lifeMs / 2));
    this.timer.unref();
    this.orphans = new LeaseOrphans(redis, namespace, this.prefix, settings, logger);
    void this.orphans.beat();
    // Five beats per orphanMs: a router that misses a few (a busy event loop) is not taken for gone.
    this.beating = setInterval(() => void this.orphans.beat(), Math.max(1, settings.orphanMs / 5));
    this.beating.unref();
  }

  /**
   * Admits a request of `tokens` and `costMicros` for the caller from this router's lease, or
   * throws the 429 (503) the Redis admission would (admission.ts).
   */
  async take(caller: Caller, limits: GroupLimits, tokens: number, costMicros: bigint): Promise<LeasedTake> {
    try {
      return await this.takeOnce(caller, limits, tokens, costMicros);
    } catch (error) {
      // Refused for a limit while this router holds unspent slices or free slots of the account
      // (another key's, say): they count against the account's limits, so hand them back and ask once more.
      const limit = error instanceof GatewayError && error.code === "rate_limit_exceeded";
      if (!limit || !(await this.reclaim(caller.accountId))) throw error;
      return this.takeOnce(caller, limits, tokens, costMicros);
    }
  }

  /** Gives back the concurrency slot a request admitted here holds; false if it holds none from a lease. */
  release(requestId: string): boolean {
    const lent = this.lentSlots.get(requestId);
    if (!lent) return false;
    this.lentSlots.delete(requestId);
    this.giveSlotBack(lent.scope, lent.slot);
    return true;
  }

  /** Hands back every lease's unspent rest and every free slot (router draining). */
  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.timer);
    // Its beat lapses: what its requests still hold once ledger settled them is dropped then.
    clearInterval(this.beating);
    await Promise.all(this.renewals);
    await Promise.all([...this.scopes.values()].map((scope) => this.handBack(scope)));
  }

  private async takeOnce(caller: Caller, limits: GroupLimits, tokens: number, costMicros: bigint): Promise<LeasedTake> {
    const key = scopeKey(caller, limits);
    let scope = this.scopes.get(key);
    if (!scope) {
      scope = newScope(caller, key);
      this.scopes.set(key, scope);
    }
    let refusal: unknown;
    for (;;) {
      const fromCurrent = this.takeFromCurrent(caller, scope, limits, tokens, costMicros);
      if (fromCurrent) return fromCurrent;
      // The grant waited for was refused for a reason that refuses this request too.
      if (refusal) throw refusal;
      const pending = scope.pending;
      if (!pending) break;
      scope.waiting += 1;
      const failure = await pending.then(
        () => undefined,
        (error: unknown) => error,
      );
      scope.waiting -= 1;
      if (sharedRefusal(failure)) refusal = failure;
    }
    const previous = scope.current;
    retire(scope);
    const wantsSlot = Boolean(limits.concurrent_requests);
    // A free slot is lent before the call, so a request admitted meanwhile cannot take it too.
    let slot = wantsSlot ? scope.slots.lend() : undefined;
    const ask = { caller, limits, tokens, least: costMicros, newSlot: wantsSlot && !slot, previous };
    const admitting = scope;
    try {
      // Admitted from the new lease before any other grant's answer can retire it.
      return await this.grant(admitting, ask, (lease) => {
        // The grant took at least one slot when none was free (check_limits refused it otherwise).
        slot ??= wantsSlot ? admitting.slots.lend() : undefined;
        return this.admit(caller, admitting, lease, limits, tokens, costMicros, slot);
      });
    } catch (error) {
      if (slot) this.giveSlotBack(admitting, slot);
      throw error;
    }
  }

  // Admits from the scope's current lease without a call if it has room for the request.
  private takeFromCurrent(
    caller: Caller,
    scope: Scope,
    limits: GroupLimits,
    tokens: number,
    costMicros: bigint,
  ): LeasedTake | undefined {
    const lease = scope.current;
    if (!lease || !leaseUsable(lease, this.settings.lifeMs) || lease.free < costMicros) return undefined;
    if (lease.rates && !sliceAdmits(lease.rates, tokens, Date.now())) return undefined;
    const wantsSlot = Boolean(limits.concurrent_requests);
    if (wantsSlot && !scope.slots.hasFree()) return undefined;
    const slot = wantsSlot ? scope.slots.lend() : undefined;
    const taken = this.admit(caller, scope, lease, limits, tokens, costMicros, slot);
    const halfSpent = lease.free * 2n < lease.granted || (lease.rates !== undefined && sliceHalfSpent(lease.rates));
    const halfLived = Date.now() - lease.grantedAt >= this.settings.lifeMs / 2;
    if ((halfSpent || halfLived) && !scope.pending) {
      this.renewAhead(scope, { caller, limits, tokens, least: costMicros, newSlot: false, previous: lease });
    }
    return taken;
  }

  private admit(
    caller: Caller,
    scope: Scope,
    lease: Lease,
    limits: GroupLimits,
    tokens: number,
    costMicros: bigint,
    slot: string | undefined,
  ): LeasedTake {
    if (slot) this.lentSlots.set(caller.requestId, { scope, slot });
    return admitFrom(lease, limits, tokens, costMicros);
  }

  // Kept for the scope's next request while it has a lease; else handed back to Redis at once.
  private giveSlotBack(scope: Scope, slot: string): void {
    const keep = !this.closed && scope.current !== undefined && leaseUsable(scope.current, this.settings.lifeMs);
    const returning = scope.slots.giveBack(slot, keep);
    if (returning === undefined) return;
    scope.returningSlots.push(returning);
    void this.giveBack(scope);
  }

  // Takes the next lease in the background; a refusal keeps the current one in use.
  private renewAhead(scope: Scope, ask: GrantRequest): void {
    const renewal = this.grant(scope, ask, () => undefined).then(
      () => undefined,
      (error: unknown) => {
        // A refusal (balance short, a limit reached) or Redis's failure (logged by the reservations) keeps the current lease.
        if (!(error instanceof GatewayError)) {
          this.logger.warn({ err: error, account_id: ask.caller.accountId }, "could not renew an admission lease");
        }
      },
    );
    this.renewals.add(renewal);
    void renewal.finally(() => this.renewals.delete(renewal));
  }

  /**
   * Takes a lease with room for at least one request like the asking one and for the requests
   * waiting, runs `first` with it, and makes it the scope's current lease.
   */
  private grant<T>(scope: Scope, ask: GrantRequest, first: (lease: Lease) => T): Promise<T> {
    const id = `${this.prefix}:${++this.serial}`;
    // Listed ahead of the grant on the same connection, so no lease is ever left unlisted.
    this.orphans.track(scope).then(undefined, (error: unknown) => {
      this.logger.warn({ err: error, account_id: scope.accountId }, "could not list an admission lease's scope");
    });
    const granting = takeLease(this.context, scope, id, ask).then((lease) => {
      const result = first(lease);
      retire(scope);
      scope.current = lease;
      return result;
    });
    scope.pending = granting;
    const settled = () => {
      if (scope.pending === granting) scope.pending = undefined;
    };
    // Before the waiters' handlers: they find no grant in flight and try the new lease first.
    void granting.then(settled, settled);
    return granting;
  }

  // Retires the account's leases that hold unspent slices and hands them back with its free
  // slots; answers whether there was any.
  private async reclaim(accountId: string): Promise<boolean> {
    const holding = [...this.scopes.values()].filter(
      (scope) => scope.accountId === accountId && holdsUnspentLimits(scope),
    );
    await Promise.all(holding.map((scope) => this.handBack(scope)));
    return holding.length > 0;
  }

  // Takes the scope's lease out of use and hands back its rest and free slots.
  private handBack(scope: Scope): Promise<void> {
    retire(scope);
    scope.returningSlots.push(...scope.slots.drain());
    return this.giveBack(scope);
  }

  private async giveBack(scope: Scope): Promise<void> {
    const rests = takeRests(scope);
    if (!hasRests(rests)) return;
    try {
      await giveBackToLeases(this.redis, this.namespace, scope, rests);
    } catch (error) {
      // Not given back, the rest stays held until it lapses (or its window ends): never spendable
      // twice. Slots would hold a concurrency limit for RATE_LIMIT_LEASE_MS, and taking one back
      // twice is harmless, so they go back with the scope's next call (its sweep at the latest).
      this.logger.warn({ err: error, account_id: scope.accountId }, "could not give back a lease's rest; it lapses");
      this.requeueSlots(scope, rests.slots);
    }
  }

  // Keeps slots to hand back in the scope (or the one that replaced it), kept until they are.
  private requeueSlots(scope: Scope, slots: readonly string[]): void {
    if (slots.length === 0) return;
    const kept = this.scopes.get(scope.key) ?? scope;
    kept.returningSlots.push(...slots);
    this.scopes.set(scope.key, kept);
  }

  // Takes stale leases out of use and hands back their rest and an idle scope's free slots; forgets idle scopes.
  private sweep(): void {
    for (const [key, scope] of this.scopes) {
      if (scope.current && !leaseUsable(scope.current, this.settings.lifeMs)) retire(scope);
      if (scope.pending) continue;
      if (!scope.current) scope.returningSlots.push(...scope.slots.drain());
      void this.giveBack(scope);
      if (!scope.current && scope.slots.idle && scope.returningSlots.length === 0) this.scopes.delete(key);
    }
  }
}
