import type { GroupLimits } from "@gateway/catalogue";
import type { Redis } from "@gateway/platform";
import type { Caller } from "@gateway/proto/common/v1/common";
import { sliceOf } from "./lease-limits.js";
import { type Lease, limited, perMinute, type Scope, takeRests } from "./lease-scope.js";
import { grantLease, type LeaseGrant, type LeaseRests, type SliceWanted } from "./lease-scripts.js";
import { limitsAnswer, type RateLimiter } from "./rate-limits.js";
import type { Reservations } from "./reservations.js";

export interface LeaseSettings {
  // The most one lease holds of a balance (or a capped key's room): the overdraft bound's share of each router.
  maxMicros: bigint;
  // How long a lease admits requests before the router takes a fresh one; the unspent rest of
  // an idle account's lease is handed back within this too.
  lifeMs: number;
  // How long a lease's entry stays in Redis if no one settles it or drops it.
  holdMs: number;
  // A router whose heartbeat is older than this (killed, say) has its leases dropped by the others.
  orphanMs: number;
}

export interface LeaseGrantContext {
  redis: Redis;
  reservations: Reservations;
  rateLimits: RateLimiter;
  settings: LeaseSettings;
}

/** What one grant is for: the asking request and what the scope's previous lease admitted. */
export interface GrantRequest {
  caller: Caller;
  limits: GroupLimits;
  tokens: number;
  // The asking request's worst case: the least a lease must hold.
  least: bigint;
  // Whether it needs a slot from Redis (none free in the scope's pool).
  newSlot: boolean;
  previous: Lease | undefined;
}

const larger = (a: bigint, b: bigint) => (a > b ? a : b);
const smaller = (a: bigint, b: bigint) => (a < b ? a : b);

/**
 * Takes lease `id` in one Redis call, handing the scope's rests back first: twice what the
 * previous lease admitted, at least the asking request's worst case times the requests waiting
 * with it, at most `maxMicros`, with a limited group's slice. Throws the 429 (503) of a refusal.
 */
export async function takeLease(context: LeaseGrantContext, scope: Scope, id: string, ask: GrantRequest) {
  const { caller, limits, least, previous } = ask;
  const demand = 1 + scope.waiting;
  const sized = larger(2n * (previous?.admitted ?? 0n), least * BigInt(demand));
  const wanted = larger(smaller(sized, context.settings.maxMicros), least);
  const slice = limited(limits) ? sliceWanted(context.rateLimits, scope, id, ask, demand) : undefined;
  let returned: LeaseRests = takeRests(scope);
  let answer: LeaseGrant | undefined;
  let sentAt = 0;
  await context.reservations.reserveThrough(caller, least, async ({ keys, arguments: [, , now, , cap] }) => {
    const sending = returned;
    // Sent once: a retry (the balance was loaded meanwhile) must not hand the same back twice.
    returned = { money: new Map(), rates: [], slots: [] };
    sentAt = Date.now();
    try {
      answer = await grantLease(
        context.redis,
        keys,
        context.rateLimits.limitKeys(caller),
        { id, least, wanted, now: Number(now), expiresAt: Number(now) + context.settings.holdMs, cap: cap! },
        sending,
        slice,
      );
    } catch (error) {
      // Redis failed: slots may go back twice harmlessly, so they go with the scope's next call;
      // the rest (money, window counts) is left to lapse, as subtracting it twice could free too much.
      scope.returningSlots.push(...sending.slots);
      throw error;
    }
    // Throws the 429 of the limit a lease could not be sliced from.
    if (answer.outcome === 3) limitsAnswer(answer.limits, limits);
    return [answer.outcome, answer.available.toString()];
  });
  const granted = answer!.granted;
  const lease: Lease = { id, granted, free: granted, admitted: 0n, grantedAt: Date.now() };
  if (slice) {
    const taken = sliceOf(answer!.limits, sentAt, {
      requests: Boolean(limits.requests_per_minute),
      tokens: Boolean(limits.tokens_per_minute),
    });
    if (perMinute(limits)) lease.rates = taken.slice;
    scope.slots.add(slice.slots.slice(0, taken.slots));
  }
  return lease;
}

// What the next lease of a limited group asks for: twice what the previous one admitted of
// requests and tokens, at least `demand` requests like the asking one, and the slots of the
// recent peak plus the waiting requests'.
function sliceWanted(
  rateLimits: RateLimiter,
  scope: Scope,
  id: string,
  ask: GrantRequest,
  demand: number,
): SliceWanted {
  const { caller, limits, tokens, newSlot, previous } = ask;
  const checkArguments = rateLimits.checkArguments(caller, limits, tokens);
  // With a free slot in hand, the lease needs none of Redis's: check_limits must not refuse for one.
  if (!newSlot) checkArguments[5] = "0";
  const count = limits.concurrent_requests ? scope.slots.wanted(newSlot) + demand - 1 : 0;
  return {
    checkArguments,
    requests: Math.max(demand, 2 * (previous?.rates?.requests?.admitted ?? 0)),
    tokens: Math.max(tokens * demand, 2 * (previous?.rates?.tokens?.admitted ?? 0)),
    concurrent: limits.concurrent_requests ?? 0,
    slots: Array.from({ length: count }, (_, index) => `${id}:slot:${index}`),
    held: scope.slots.held(),
  };
}
