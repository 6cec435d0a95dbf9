import type { Caller } from "@gateway/proto/common/v1/common";
import type { LedgerServiceClient } from "@gateway/proto/ledger/v1/ledger";
import { billingKeys, callUnary, GatewayError, type Logger, type Redis, serviceUnavailable } from "@gateway/shared";

// Atomically: drop lapsed reservations, then reserve `amount` only if the balance minus
// what is still reserved covers it. Replies 1 (reserved), 0 (not enough) or -1 (no balance
// loaded yet). Amounts are micro-yuan, exact in Lua's doubles up to 2^53.
const reserveScript = `
local balance = redis.call('GET', KEYS[1])
if not balance then return {-1, 0} end
local lapsed = redis.call('ZRANGEBYSCORE', KEYS[3], '-inf', ARGV[3])
for _, id in ipairs(lapsed) do redis.call('HDEL', KEYS[2], id) end
if #lapsed > 0 then redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', ARGV[3]) end
local reserved = 0
for _, amount in ipairs(redis.call('HVALS', KEYS[2])) do reserved = reserved + tonumber(amount) end
local available = tonumber(balance) - reserved
if available < tonumber(ARGV[2]) then return {0, tostring(available)} end
redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
redis.call('ZADD', KEYS[3], ARGV[4], ARGV[1])
return {1, tostring(available)}
`;

const formatYuan = (micros: bigint) => `${micros / 1_000_000n}.${(micros % 1_000_000n).toString().padStart(6, "0")}`;

function insufficientQuota(costMicros: bigint, availableMicros: bigint): GatewayError {
  return new GatewayError(
    429,
    "insufficient_quota",
    "insufficient_quota",
    `You exceeded your current quota: this request may cost up to ${formatYuan(costMicros)} yuan and ` +
      `${formatYuan(availableMicros > 0n ? availableMicros : 0n)} yuan is available. Top up your balance, or lower max_tokens.`,
  );
}

/**
 * Reserves each request's worst-case cost before any vendor is called, so concurrent
 * requests cannot spend more than the account holds. Ledger frees a reservation when the
 * request's usage event is committed; one whose request died lapses after `ttlMs`.
 */
export class Reservations {
  constructor(
    private readonly redis: Redis,
    private readonly ledger: LedgerServiceClient,
    private readonly namespace: string,
    private readonly ttlMs: number,
    private readonly logger: Logger,
  ) {}

  async reserve(caller: Caller, costMicros: bigint): Promise<void> {
    let [outcome, available] = await this.tryReserve(caller, costMicros);
    if (outcome === -1) {
      await this.loadBalance(caller.accountId);
      [outcome, available] = await this.tryReserve(caller, costMicros);
    }
    if (outcome !== 1) throw insufficientQuota(costMicros, available);
  }

  private async tryReserve(caller: Caller, costMicros: bigint): Promise<[number, bigint]> {
    const keys = billingKeys(this.namespace, caller.accountId);
    const now = Date.now();
    try {
      const [outcome, available] = (await this.redis.eval(reserveScript, {
        keys: [keys.balance, keys.reservations, keys.expiries],
        arguments: [caller.requestId, costMicros.toString(), String(now), String(now + this.ttlMs)],
      })) as [number, string];
      return [Number(outcome), BigInt(available)];
    } catch (error) {
      // Never serve a request that could not be paid for: no reservation, no vendor call.
      this.logger.error({ err: error }, "reservation failed");
      throw serviceUnavailable("Billing is temporarily unavailable. Please retry shortly.", 2_000);
    }
  }

  private async loadBalance(accountId: string): Promise<void> {
    try {
      await callUnary(this.ledger.loadBalance.bind(this.ledger), { accountId }, 5_000);
    } catch (error) {
      this.logger.error({ err: error, account_id: accountId }, "could not load the balance");
      throw serviceUnavailable("Billing is temporarily unavailable. Please retry shortly.", 2_000);
    }
  }
}
