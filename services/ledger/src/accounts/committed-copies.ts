import { billingKeys } from "@gateway/billing";
import type { Redis } from "@gateway/platform";

/** A balance as one commit left it, with the account's balance_version after that commit. */
export interface CommittedBalance {
  micros: bigint;
  version: bigint;
}

// Writes the balance only if it comes from a newer commit than the copy there, so copies
// written out of order (ledger replicas settling batches of one account, a load racing a
// commit) end at the newest. KEYS: balance, its version. ARGV: balance, version.
// Replies the balance the copy holds afterwards.
const newerBalanceScript = `
local held = redis.call('GET', KEYS[2])
local current = redis.call('GET', KEYS[1])
if held and current and tonumber(held) >= tonumber(ARGV[2]) then return current end
redis.call('SET', KEYS[1], ARGV[1])
redis.call('SET', KEYS[2], ARGV[2])
return ARGV[1]
`;

// A key's spent total only grows, so the larger value is the newer one. KEYS: spent. ARGV: spent.
// Replies the total the copy holds afterwards.
const largerSpentScript = `
local held = redis.call('GET', KEYS[1])
if held and tonumber(held) >= tonumber(ARGV[1]) then return held end
redis.call('SET', KEYS[1], ARGV[1])
return ARGV[1]
`;

type Commands = Pick<Redis, "eval"> | ReturnType<Redis["multi"]>;

/** Queues (on a pipeline) or runs the write of an account's balance copy; run, it answers the copy's balance. */
export function writeBalanceCopy(redis: Commands, namespace: string, accountId: string, balance: CommittedBalance) {
  const keys = billingKeys(namespace, accountId);
  return redis.eval(newerBalanceScript, {
    keys: [keys.balance, keys.balanceVersion],
    arguments: [balance.micros.toString(), balance.version.toString()],
  });
}

/** Queues (on a pipeline) or runs the write of a key's spent copy; run, it answers the copy's total. */
export function writeKeySpentCopy(redis: Commands, namespace: string, accountId: string, keyId: string, spent: bigint) {
  return redis.eval(largerSpentScript, {
    keys: [billingKeys(namespace, accountId).keySpent(keyId)],
    arguments: [spent.toString()],
  });
}
