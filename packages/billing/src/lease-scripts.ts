import { LuaScript, type Redis } from "@gateway/platform";
import { billingKeys, rateLimitKeys } from "./billing-keys.js";
import { returnRestsFunction, takeSliceFunction } from "./lease-limits.js";
import { rateLimitFunctions } from "./rate-limits.js";

// Drops the reservations (and admission leases) whose expiry has passed: their requests'
// usage events never came, or their router died.
export const lapseFunction = `
local function lapse(reservations, expiries, now)
  local lapsed = redis.call('ZRANGEBYSCORE', expiries, '-inf', now)
  for _, id in ipairs(lapsed) do redis.call('HDEL', reservations, id) end
  if #lapsed > 0 then redis.call('ZREMRANGEBYSCORE', expiries, '-inf', now) end
end
`;

// What a capped key may still be reserved: its cap minus what it spent and what its open
// reservations and leases hold ("amount:expiry" entries of its own hash, swept here when
// lapsed), `own` (a request reserved again) not counted.
export const keyCapFunction = `
local function key_cap_left(key_reservations, cap, spent, now, own)
  local reserved = 0
  local held = redis.call('HGETALL', key_reservations)
  for i = 1, #held, 2 do
    local value, expiry = string.match(held[i + 1], '^(%d+):(%d+)$')
    if tonumber(expiry) <= now then redis.call('HDEL', key_reservations, held[i])
    elseif held[i] ~= own then reserved = reserved + tonumber(value) end
  end
  return tonumber(cap) - tonumber(spent) - reserved
end
`;

// An admission lease is one entry of the account's reservations hash, under the lease's id,
// holding what its router may still admit from it plus the worst cases of the requests it
// admitted that ledger has not settled yet (a capped key's lease is in the key's hash too, as
// "amount:expiry"). Router and ledger only ever subtract from it (router its unspent rest,
// ledger each settled request's worst case), so their writes commute; an entry that reaches
// zero, or is gone (it lapsed), is dropped and takes nothing more.
const giveBackFunction = `
local function give_back(reservations, expiries, key_reservations, id, amount)
  local held = redis.call('HGET', reservations, id)
  if not held then return end
  local left = tonumber(held) - tonumber(amount)
  if left <= 0 then
    redis.call('HDEL', reservations, id)
    redis.call('ZREM', expiries, id)
    redis.call('HDEL', key_reservations, id)
    redis.call('DEL', reservations .. ':settled:' .. id)
  else
    redis.call('HSET', reservations, id, string.format('%.0f', left))
    local keyHeld = redis.call('HGET', key_reservations, id)
    if keyHeld then
      redis.call('HSET', key_reservations, id, string.format('%.0f', left) .. ':' .. string.match(keyHeld, ':(%d+)$'))
    end
  end
end
local function give_back_all(rk, lk, back)
  for _, pair in ipairs(back.money) do give_back(rk[2], rk[3], rk[5], pair[1], pair[2]) end
  return_rests(lk, back.rates, back.slots)
end
`;

const restFunctions = `${returnRestsFunction}
${giveBackFunction}`;

// KEYS: the reservation's five (reservations.ts), then the limits' four (rate-limits.ts). ARGV:
// lease id, least, wanted, now, expiry, key cap ('' = none), what is handed back first (JSON:
// money [[lease id, amount]], rates, slots, as `give_back_all`), so it counts for the new lease;
// then, for a limited group, `check_limits`'s six arguments and what `take_slice` wants (JSON).
// Takes min(wanted, available, a capped key's room) if at least `least` fits both. Replies
// {1, available, granted, then take_slice's seven}, {0, available, 0} short of `least`, {2, left
// under the cap, 0}, {3, 0, 0, then check_limits's refusal}, {-1, 0, 0} balance (or spent
// total) not loaded yet (the give-backs are done). Amounts in micro-yuan, formatted as
// reservations.ts explains.
const grantScript = new LuaScript(`${lapseFunction}
${keyCapFunction}
${rateLimitFunctions}
${takeSliceFunction}
${restFunctions}
local rk = {KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5]}
local lk = {KEYS[6], KEYS[7], KEYS[8], KEYS[9]}
give_back_all(rk, lk, cjson.decode(ARGV[7]))
local balance = redis.call('GET', KEYS[1])
if not balance then return {-1, '0', '0'} end
local cap, spent = ARGV[6], nil
if cap ~= '' then
  spent = redis.call('GET', KEYS[4])
  if not spent then return {-1, '0', '0'} end
end
local now = tonumber(ARGV[4])
lapse(KEYS[2], KEYS[3], now)
local la, checked = nil, nil
if ARGV[8] then
  la = {ARGV[8], ARGV[9], ARGV[10], ARGV[11], ARGV[12], ARGV[13]}
  local refusal
  refusal, checked = check_limits(lk, la)
  if refusal then return {3, '0', '0', refusal[1], refusal[2], refusal[3], refusal[4], refusal[5]} end
end
local reserved = 0
for _, held in ipairs(redis.call('HVALS', KEYS[2])) do reserved = reserved + tonumber(held) end
local available = tonumber(balance) - reserved
local least, wanted = tonumber(ARGV[2]), tonumber(ARGV[3])
if available < least then return {0, string.format('%.0f', available), '0'} end
local granted = math.min(wanted, available)
if cap ~= '' then
  local left = key_cap_left(KEYS[5], cap, spent, now, ARGV[1])
  if left < least then return {2, string.format('%.0f', left), '0'} end
  granted = math.min(granted, left)
  redis.call('HSET', KEYS[5], ARGV[1], string.format('%.0f', granted) .. ':' .. ARGV[5])
end
redis.call('HSET', KEYS[2], ARGV[1], string.format('%.0f', granted))
redis.call('ZADD', KEYS[3], ARGV[5], ARGV[1])
local reply = {1, string.format('%.0f', available), string.format('%.0f', granted)}
if la then
  -- At least one, the asking request's own; a free request (least 0) leaves money out of it.
  local fits = least > 0 and math.max(1, math.floor(granted / least)) or math.huge
  for _, value in ipairs(take_slice(lk, la, checked, cjson.decode(ARGV[14]), fits)) do table.insert(reply, value) end
end
return reply
`);

// KEYS as the grant's; ARGV: what is handed back (JSON, as the grant's).
const giveBackSource = `${restFunctions}
give_back_all({KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5]}, {KEYS[6], KEYS[7], KEYS[8], KEYS[9]}, cjson.decode(ARGV[1]))
`;
const giveBackScript = new LuaScript(giveBackSource);

/** What an admission took from a lease: the usage event names both, for ledger to give back. */
export interface LeasedAdmission {
  id: string;
  micros: bigint;
}

/** Amounts handed back to leases: lease id → micro-yuan. */
export type LeaseAmounts = ReadonlyMap<string, bigint>;

/** What leases no longer use: money (lease id → micro-yuan), rate-window rests, concurrency slots. */
export interface LeaseRests {
  money: LeaseAmounts;
  // [window, requests, tokens]
  rates: readonly (readonly [number, number, number])[];
  slots: readonly string[];
}

const restsJson = (rests: LeaseRests) =>
  JSON.stringify({
    money: [...rests.money].map(([id, micros]) => [id, micros.toString()]),
    rates: rests.rates,
    slots: rests.slots,
  });

/** Whether there is anything to hand back. */
export const hasRests = (rests: LeaseRests) => rests.money.size + rests.rates.length + rests.slots.length > 0;

/** The nine keys a lease script reads: the reservation's five (as `reserveThrough` gives them), then the limits'. */
function leaseKeys(namespace: string, accountId: string, keyId: string): string[] {
  const keys = billingKeys(namespace, accountId);
  const limits = rateLimitKeys(namespace, accountId, keyId);
  return [
    keys.balance,
    keys.reservations,
    keys.expiries,
    keys.keySpent(keyId),
    keys.keyReservations(keyId),
    limits.keyWindow,
    limits.accountWindow,
    limits.keySlots,
    limits.accountSlots,
  ];
}

export interface LeaseGrant {
  // 1 granted, 0 short of `least`, 2 a capped key's room short of it, 3 a limit refused,
  // -1 balance not loaded yet (as the reservation script).
  outcome: number;
  available: bigint;
  granted: bigint;
  // After `granted`: take_slice's seven numbers, or check_limits's refusal (outcome 3).
  limits: unknown[];
}

/** A limited group's part of a grant: `check_limits`'s arguments and what `take_slice` wants. */
export interface SliceWanted {
  checkArguments: string[];
  requests: number;
  tokens: number;
  concurrent: number;
  slots: readonly string[];
  held: readonly string[];
}

/**
 * Takes a new lease of up to `wanted` (at least `least`) from the account's spendable balance
 * (and a capped key's room), with a slice of the group's limits if it sets any, after handing
 * `returned` back to the router's earlier leases, in one Redis call.
 */
export async function grantLease(
  redis: Redis,
  reservationKeys: readonly string[],
  limitKeys: readonly string[],
  lease: { id: string; least: bigint; wanted: bigint; now: number; expiresAt: number; cap: string },
  returned: LeaseRests,
  slice?: SliceWanted,
): Promise<LeaseGrant> {
  const [outcome, available, granted, ...limits] = (await grantScript.run(redis, {
    keys: [...reservationKeys, ...limitKeys],
    arguments: [
      lease.id,
      lease.least.toString(),
      lease.wanted.toString(),
      String(lease.now),
      String(lease.expiresAt),
      lease.cap,
      restsJson(returned),
      ...(slice
        ? [
            ...slice.checkArguments,
            JSON.stringify({
              requests: slice.requests,
              tokens: slice.tokens,
              concurrent: slice.concurrent,
              slots: slice.slots,
              held: slice.held,
            }),
          ]
        : []),
    ],
  })) as [number, string, string, ...unknown[]];
  return { outcome: Number(outcome), available: BigInt(available), granted: BigInt(granted), limits };
}

/** Hands rests back to a key's (and its account's) leases: a router's unspent rest, or what a request no longer needs. */
export async function giveBackToLeases(
  redis: Redis,
  namespace: string,
  holder: { accountId: string; keyId: string },
  rests: LeaseRests,
): Promise<void> {
  if (!hasRests(rests)) return;
  await giveBackScript.run(redis, {
    keys: leaseKeys(namespace, holder.accountId, holder.keyId),
    arguments: [restsJson(rests)],
  });
}

// KEYS as the grant's; ARGV: JSON [[lease id, request id, micros], ...]. Gives each request's
// worst case back to its lease once, however often its event is settled (a ledger replica killed
// between its commit and this call leaves the redelivered copy to do it): each lease keeps the
// ids it was given back for beside its entry, until the entry is gone or lapses.
const settleLeasedSource = `${restFunctions}
for _, admission in ipairs(cjson.decode(ARGV[1])) do
  local id, request, micros = admission[1], admission[2], admission[3]
  local expiry = redis.call('ZSCORE', KEYS[3], id)
  local marks = KEYS[2] .. ':settled:' .. id
  if expiry and redis.call('SADD', marks, request) == 1 then
    redis.call('PEXPIREAT', marks, math.floor(tonumber(expiry)) + 60000)
    give_back(KEYS[2], KEYS[3], KEYS[5], id, micros)
  end
end
`;

/** A request's worst case admitted from a lease, to give back once its charge is committed. */
export interface LeasedSettlement {
  leaseId: string;
  requestId: string;
  micros: bigint;
}

/** Queues ledger's settlement of leased requests on a pipeline, after the charges committed. */
export function queueGiveBackToLeases(
  pipeline: ReturnType<Redis["multi"]>,
  namespace: string,
  holder: { accountId: string; keyId: string },
  settled: readonly LeasedSettlement[],
): void {
  if (settled.length === 0) return;
  pipeline.eval(settleLeasedSource, {
    keys: leaseKeys(namespace, holder.accountId, holder.keyId),
    arguments: [
      JSON.stringify(settled.map(({ leaseId, requestId, micros }) => [leaseId, requestId, micros.toString()])),
    ],
  });
}

/** Only money to hand back. */
export const moneyRests = (money: LeaseAmounts): LeaseRests => ({ money, rates: [], slots: [] });

// KEYS as the grant's; ARGV: a router's lease id prefix ("lease:<router>:"). Drops that router's
// lease entries from the account's reservations and a capped key's (its concurrency slots
// lapse as a killed router's requests' slots do).
const dropScript = new LuaScript(`
local prefix = ARGV[1]
local function mine(id) return string.sub(id, 1, #prefix) == prefix end
for _, id in ipairs(redis.call('HKEYS', KEYS[2])) do
  if mine(id) then
    redis.call('HDEL', KEYS[2], id)
    redis.call('ZREM', KEYS[3], id)
  end
end
for _, id in ipairs(redis.call('HKEYS', KEYS[5])) do
  if mine(id) then redis.call('HDEL', KEYS[5], id) end
end
`);

/** Drops every lease entry of the router whose lease ids start with `prefix` from one scope's keys. */
export async function dropLeasesOf(
  redis: Redis,
  namespace: string,
  holder: { accountId: string; keyId: string },
  prefix: string,
): Promise<void> {
  await dropScript.run(redis, { keys: leaseKeys(namespace, holder.accountId, holder.keyId), arguments: [prefix] });
}
