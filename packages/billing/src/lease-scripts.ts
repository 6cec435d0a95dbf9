import { LuaScript, type Redis } from "@gateway/platform";
import { billingKeys } from "./billing-keys.js";

// Drops the reservations (and admission leases) whose expiry has passed: their requests'
// usage events never came, or their router died.
export const lapseFunction = `
local function lapse(reservations, expiries, now)
  local lapsed = redis.call('ZRANGEBYSCORE', expiries, '-inf', now)
  for _, id in ipairs(lapsed) do redis.call('HDEL', reservations, id) end
  if #lapsed > 0 then redis.call('ZREMRANGEBYSCORE', expiries, '-inf', now) end
end
`;

// An admission lease is one entry of the account's reservations hash, under the lease's id,
// holding what its router may still admit from it plus the worst cases of the requests it
// admitted that ledger has not settled yet. Router and ledger only ever subtract from it
// (router its unspent rest, ledger each settled request's worst case), so their writes commute;
// an entry that reaches zero, or is gone (it lapsed), is dropped and takes nothing more.
const giveBackFunction = `
local function give_back(reservations, expiries, id, amount)
  local held = redis.call('HGET', reservations, id)
  if not held then return end
  local left = tonumber(held) - tonumber(amount)
  if left <= 0 then
    redis.call('HDEL', reservations, id)
    redis.call('ZREM', expiries, id)
  else
    redis.call('HSET', reservations, id, string.format('%.0f', left))
  end
end
`;

// KEYS: balance, reservations, expiries. ARGV: lease id, least, wanted, now, expiry, then pairs
// (lease id, amount) given back first, so what a router hands back counts for its new lease.
// Takes min(wanted, available) if at least `least` is available. Replies {1, available, granted},
// {0, available, 0} short of `least`, {-1, 0, 0} balance not loaded yet (the give-backs are done).
// Amounts in micro-yuan, formatted as reservations.ts explains.
const grantScript = new LuaScript(`${lapseFunction}
${giveBackFunction}
for i = 6, #ARGV, 2 do give_back(KEYS[2], KEYS[3], ARGV[i], ARGV[i + 1]) end
local balance = redis.call('GET', KEYS[1])
if not balance then return {-1, '0', '0'} end
lapse(KEYS[2], KEYS[3], tonumber(ARGV[4]))
local reserved = 0
for _, held in ipairs(redis.call('HVALS', KEYS[2])) do reserved = reserved + tonumber(held) end
local available = tonumber(balance) - reserved
local least, wanted = tonumber(ARGV[2]), tonumber(ARGV[3])
if available < least then return {0, string.format('%.0f', available), '0'} end
local granted = math.min(wanted, available)
redis.call('HSET', KEYS[2], ARGV[1], string.format('%.0f', granted))
redis.call('ZADD', KEYS[3], ARGV[5], ARGV[1])
return {1, string.format('%.0f', available), string.format('%.0f', granted)}
`);

// KEYS: reservations, expiries. ARGV: pairs (lease id, amount).
const giveBackSource = `${giveBackFunction}
for i = 1, #ARGV, 2 do give_back(KEYS[1], KEYS[2], ARGV[i], ARGV[i + 1]) end
`;
const giveBackScript = new LuaScript(giveBackSource);

/** What an admission took from a lease: the usage event names both, for ledger to give back. */
export interface LeasedAdmission {
  id: string;
  micros: bigint;
}

/** Amounts handed back to leases: lease id → micro-yuan. */
export type LeaseAmounts = ReadonlyMap<string, bigint>;

const pairsOf = (amounts: LeaseAmounts) => [...amounts].flatMap(([id, micros]) => [id, micros.toString()]);

export interface LeaseGrant {
  // 1 granted, 0 short of `least`, -1 balance not loaded yet (as the reservation script).
  outcome: number;
  available: bigint;
  granted: bigint;
}

/**
 * Takes a new lease of up to `wanted` (at least `least`) from the account's spendable balance,
 * after handing `returned` back to the router's earlier leases, in one Redis call.
 */
export async function grantLease(
  redis: Redis,
  keys: { balance: string; reservations: string; expiries: string },
  lease: { id: string; least: bigint; wanted: bigint; now: number; expiresAt: number },
  returned: LeaseAmounts,
): Promise<LeaseGrant> {
  const [outcome, available, granted] = (await grantScript.run(redis, {
    keys: [keys.balance, keys.reservations, keys.expiries],
    arguments: [
      lease.id,
      lease.least.toString(),
      lease.wanted.toString(),
      String(lease.now),
      String(lease.expiresAt),
      ...pairsOf(returned),
    ],
  })) as [number, string, string];
  return { outcome: Number(outcome), available: BigInt(available), granted: BigInt(granted) };
}

/** Hands amounts back to an account's leases (router's unspent rest, or what a request no longer needs). */
export async function giveBackToLeases(
  redis: Redis,
  namespace: string,
  accountId: string,
  amounts: LeaseAmounts,
): Promise<void> {
  if (amounts.size === 0) return;
  const keys = billingKeys(namespace, accountId);
  await giveBackScript.run(redis, { keys: [keys.reservations, keys.expiries], arguments: pairsOf(amounts) });
}

/** Queues the same on a pipeline (ledger's settlement, after the charges committed). */
export function queueGiveBackToLeases(
  pipeline: ReturnType<Redis["multi"]>,
  namespace: string,
  accountId: string,
  amounts: LeaseAmounts,
): void {
  if (amounts.size === 0) return;
  const keys = billingKeys(namespace, accountId);
  pipeline.eval(giveBackSource, { keys: [keys.reservations, keys.expiries], arguments: pairsOf(amounts) });
}
