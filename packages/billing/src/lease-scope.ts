import type { GroupLimits } from "@gateway/catalogue";
import type { Caller } from "@gateway/proto/common/v1/common";
import { type RateSlice, sliceRest, spendSlice } from "./lease-limits.js";
import type { LeasedAdmission, LeaseRests } from "./lease-scripts.js";
import { SlotPool } from "./lease-slots.js";
import { rateLimitHeaders } from "./rate-limits.js";

export interface Lease {
  id: string;
  granted: bigint;
  // What this router may still admit from it.
  free: bigint;
  // The worst cases admitted from it: the spend the next lease is sized by.
  admitted: bigint;
  grantedAt: number;
  // Its slice of the rate window, when the group sets per-minute limits.
  rates?: RateSlice | undefined;
}

/**
 * What one router holds for an account's requests under no limit and no spending cap, or for
 * one key's requests under a limit or a cap (their slices and slots are the key's).
 */
export interface Scope {
  // Its key among the router's scopes (`scopeKey`).
  key: string;
  accountId: string;
  keyId: string;
  current?: Lease | undefined;
  // Unspent rests of leases taken out of use, handed back with the next call for the scope.
  money: Map<string, bigint>;
  rates: [number, number, number][];
  returningSlots: string[];
  slots: SlotPool;
  // The grant in flight for the scope, which requests it cannot admit wait for (one at a time,
  // so a burst takes one lease sized for it rather than a lease each); the scope is forgotten only with none.
  pending?: Promise<unknown> | undefined;
  // Requests waiting for `pending`: the next grant is sized for them too.
  waiting: number;
}

/** What a lease admitted: the lease it came from (for the usage event) and the x-ratelimit headers. */
export interface LeasedTake {
  admission: LeasedAdmission;
  headers: Record<string, string>;
}

export const perMinute = (limits: GroupLimits) => Boolean(limits.requests_per_minute || limits.tokens_per_minute);
export const limited = (limits: GroupLimits) => perMinute(limits) || Boolean(limits.concurrent_requests);

/** The scope a request is admitted in; a key's names its limits, so a catalogue change takes fresh slices at once. */
export function scopeKey(caller: Caller, limits: GroupLimits): string {
  if (!limited(limits) && caller.keySpendCapMicros === undefined) return caller.accountId;
  const { requests_per_minute: rpm = 0, tokens_per_minute: tpm = 0, concurrent_requests: concurrent = 0 } = limits;
  return `${caller.accountId}/${caller.keyId}/${rpm}/${tpm}/${concurrent}`;
}

export const newScope = (caller: Caller, key: string): Scope => ({
  key,
  accountId: caller.accountId,
  keyId: caller.keyId,
  money: new Map(),
  rates: [],
  returningSlots: [],
  slots: new SlotPool(),
  waiting: 0,
});

/** Whether the lease still admits: younger than `lifeMs` and inside its rate window. */
export function leaseUsable(lease: Lease, lifeMs: number): boolean {
  const now = Date.now();
  return now - lease.grantedAt < lifeMs && (!lease.rates || now < lease.rates.endsAt);
}

/** Admits one request of `tokens` and `costMicros` from the lease, answering its headers. */
export function admitFrom(lease: Lease, limits: GroupLimits, tokens: number, costMicros: bigint): LeasedTake {
  lease.free -= costMicros;
  lease.admitted += costMicros;
  const admission = { id: lease.id, micros: costMicros };
  if (!lease.rates) return { admission, headers: {} };
  const used = spendSlice(lease.rates, tokens);
  const resetMs = Math.max(0, lease.rates.endsAt - Date.now());
  return { admission, headers: rateLimitHeaders(limits, used.requests, used.tokens, resetMs) };
}

/** Takes the scope's current lease out of use, keeping its unspent rest to hand back. */
export function retire(scope: Scope): void {
  const lease = scope.current;
  if (!lease) return;
  scope.current = undefined;
  if (lease.free > 0n) scope.money.set(lease.id, (scope.money.get(lease.id) ?? 0n) + lease.free);
  const rest = lease.rates && sliceRest(lease.rates);
  if (rest) scope.rates.push(rest);
}

/** Takes out what the scope has to hand back. */
export function takeRests(scope: Scope): LeaseRests {
  const rests = { money: scope.money, rates: scope.rates, slots: scope.returningSlots };
  scope.money = new Map();
  scope.rates = [];
  scope.returningSlots = [];
  return rests;
}

/** Whether the scope holds anything that counts against a limit and admits nobody now. */
export function holdsUnspentLimits(scope: Scope): boolean {
  const rates = scope.current?.rates;
  return (
    Boolean(rates && sliceRest(rates)) ||
    scope.slots.hasFree() ||
    scope.rates.length > 0 ||
    scope.returningSlots.length > 0
  );
}
