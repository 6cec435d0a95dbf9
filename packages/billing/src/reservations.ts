import { callUnary, GatewayError, type Logger, LuaScript, type Redis, serviceUnavailable } from "@gateway/platform";
import type { Caller } from "@gateway/proto/common/v1/common";
import type { LedgerServiceClient } from "@gateway/proto/ledger/v1/ledger";
import { billingKeys } from "./billing-keys.js";
import { giveBackToLeases, keyCapFunction, type LeasedAdmission, lapseFunction, moneyRests } from "./lease-scripts.js";
import { formatYuan } from "./price.js";

// Atomically: drop lapsed reservations, then reserve `amount` only if the balance minus what
// is still reserved covers it and, for a key with a spending cap, the cap minus what the key
// spent and still has reserved covers it too. A capped key's reservations are also kept in
// its own hash as "amount:expiry", so they can be summed and swept without the account's
// expiry index (another key's call sweeps that one).
// rk (keys): balance, reservations, expiries, key spent, key reservations.
// ra (arguments): request id, amount, now, expiry, key cap ('' = no cap).
// Replies {1, available} reserved, {0, available} balance short, {2, available} cap reached,
// {-1, 0} balance (or the key's spent total) not loaded yet. Amounts are micro-yuan, exact in
// Lua's doubles up to 2^53, and formatted with '%.0f' because tostring writes 1e+14 from 10^14 on. A Lua function, so the admission script (admission.ts) runs it in
// the same call as the rate limits.
export const reserveFunction = `${lapseFunction}
${keyCapFunction}
local function reserve(rk, ra)
  local now, amount, cap = tonumber(ra[3]), tonumber(ra[2]), ra[5]
  local balance = redis.call('GET', rk[1])
  if not balance then return {-1, 0} end
  local spent
  if cap ~= '' then
    spent = redis.call('GET', rk[4])
    if not spent then return {-1, 0} end
  end
  lapse(rk[2], rk[3], now)
  -- A request reserved again (edge sent it on to another router after the first died before
  -- calling a vendor) replaces its own reservation: only the others' count against it.
  local reserved = -tonumber(redis.call('HGET', rk[2], ra[1]) or '0')
  for _, held in ipairs(redis.call('HVALS', rk[2])) do reserved = reserved + tonumber(held) end
  local available = tonumber(balance) - reserved
  if available < amount then return {0, string.format('%.0f', available)} end
  if cap ~= '' then
    local left = key_cap_left(rk[5], cap, spent, now, ra[1])
    if left < amount then return {2, string.format('%.0f', left)} end
    redis.call('HSET', rk[5], ra[1], ra[2] .. ':' .. ra[4])
  end
  redis.call('HSET', rk[2], ra[1], ra[2])
  redis.call('ZADD', rk[3], ra[4], ra[1])
  return {1, string.format('%.0f', available)}
end
`;

const reserveScript = new LuaScript(`${reserveFunction}
return reserve(KEYS, ARGV)
`);

const nonNegative = (micros: bigint) => (micros > 0n ? micros : 0n);

function insufficientQuota(costMicros: bigint, availableMicros: bigint): GatewayError {
  return new GatewayError(
    429,
    "insufficient_quota",
    "insufficient_quota",
    `You exceeded your current quota: this request may cost up to ${formatYuan(costMicros)} yuan and ` +
      `${formatYuan(nonNegative(availableMicros))} yuan is available. Top up your balance, or lower max_tokens.`,
  );
}

function spendCapReached(costMicros: bigint, leftMicros: bigint, capMicros: bigint): GatewayError {
  return new GatewayError(
    429,
    "insufficient_quota",
    "insufficient_quota",
    `This API key reached its spending cap of ${formatYuan(capMicros)} yuan: this request may cost up to ` +
      `${formatYuan(costMicros)} yuan and ${formatYuan(nonNegative(leftMicros))} yuan is left under the cap. ` +
      "Raise the key's cap or use another key.",
  );
}

/** The request that holds a reservation (or a concurrency slot): its id, account and key. */
export type RequestHolder = Pick<Caller, "requestId" | "accountId" | "keyId">;

/**
 * Reserves each request's worst-case cost before any vendor is called, so concurrent
 * requests cannot spend more than the account holds, nor more than a capped key may. Ledger
 * frees a reservation when the request's usage event is committed; one whose request died
 * lapses after its time to live; one whose work ended unbilled is released at once.
 */
export class Reservations {
  constructor(
    private readonly redis: Redis,
    private readonly ledger: LedgerServiceClient,
    private readonly namespace: string,
    private readonly ttlMs: number,
    private readonly logger: Logger,
  ) {}

  /** Reserves `costMicros` for the caller's request, or throws the 429 (or 503) the client should see. */
  async reserve(caller: Caller, costMicros: bigint, ttlMs = this.ttlMs): Promise<void> {
    await this.reserveThrough(
      caller,
      costMicros,
      async (input) => (await reserveScript.run(this.redis, input)) as unknown[],
      ttlMs,
    );
  }

  /**
   * `reserve` through a script that runs the `reserve` Lua function (alone, or in one call with
   * more, such as the rate limits) and answers its reply {outcome, available}. When Redis does not
   * hold the balance yet, ledger loads it and the script runs again. A GatewayError `run` throws
   * reaches the caller as it is; any other failure is Redis's, and a 503.
   */
  async reserveThrough(
    caller: Caller,
    costMicros: bigint,
    run: (input: { keys: string[]; arguments: string[] }) => Promise<unknown[]>,
    ttlMs = this.ttlMs,
  ): Promise<void> {
    let [outcome, available] = await this.tryReserve(caller, costMicros, ttlMs, run);
    if (outcome === -1) {
      await this.load(caller);
      [outcome, available] = await this.tryReserve(caller, costMicros, ttlMs, run);
    }
    if (outcome === 2) throw spendCapReached(costMicros, available, BigInt(caller.keySpendCapMicros ?? 0));
    if (outcome !== 1) throw insufficientQuota(costMicros, available);
  }

  /**
   * Frees a reservation whose work ended without a charge (or, for a request admitted from an
   * admission lease, gives its worst case back to that lease); a failure leaves it to lapse.
   */
  async release(holder: RequestHolder, lease?: LeasedAdmission): Promise<void> {
    const keys = billingKeys(this.namespace, holder.accountId);
    try {
      if (lease)
        return await giveBackToLeases(
          this.redis,
          this.namespace,
          holder,
          moneyRests(new Map([[lease.id, lease.micros]])),
        );
      await this.redis
        .multi()
        .hDel(keys.reservations, holder.requestId)
        .zRem(keys.expiries, holder.requestId)
        .hDel(keys.keyReservations(holder.keyId), holder.requestId)
        .exec();
    } catch (error) {
      this.logger.warn({ err: error, request_id: holder.requestId }, "could not release a reservation");
    }
  }

  private async tryReserve(
    caller: Caller,
    costMicros: bigint,
    ttlMs: number,
    run: (input: { keys: string[]; arguments: string[] }) => Promise<unknown[]>,
  ): Promise<[number, bigint]> {
    const keys = billingKeys(this.namespace, caller.accountId);
    const now = Date.now();
    try {
      const [outcome, available] = await run({
        keys: [
          keys.balance,
          keys.reservations,
          keys.expiries,
          keys.keySpent(caller.keyId),
          keys.keyReservations(caller.keyId),
        ],
        arguments: [
          caller.requestId,
          costMicros.toString(),
          String(now),
          String(now + ttlMs),
          caller.keySpendCapMicros === undefined ? "" : String(caller.keySpendCapMicros),
        ],
      });
      return [Number(outcome), BigInt(available as string | number)];
    } catch (error) {
      if (error instanceof GatewayError) throw error;
      // Never serve a request that could not be paid for: no reservation, no vendor call.
      this.logger.error({ err: error }, "reservation failed");
      throw serviceUnavailable("Billing is temporarily unavailable. Please retry shortly.", 2_000);
    }
  }

  /** Asks ledger to put the account's balance (and a capped key's spent total) where the script reads them. */
  private async load(caller: Caller): Promise<void> {
    const request = {
      accountId: caller.accountId,
      keyId: caller.keySpendCapMicros === undefined ? undefined : caller.keyId,
    };
    try {
      await callUnary(this.ledger.loadBalance.bind(this.ledger), request, 5_000);
    } catch (error) {
      this.logger.error({ err: error, account_id: caller.accountId }, "could not load the balance");
      throw serviceUnavailable("Billing is temporarily unavailable. Please retry shortly.", 2_000);
    }
  }
}
