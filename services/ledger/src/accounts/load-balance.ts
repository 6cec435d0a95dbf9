import type { Redis } from "@gateway/shared";
import { billingKeys } from "@gateway/shared";
import { z } from "zod";
import type { Database } from "../database.js";
import { keyNotFound } from "../ledger-errors.js";
import { findAccount } from "./find-account.js";

export interface LoadedBalance {
  balanceMicros: bigint;
  /** Only when a key was asked for. */
  keySpentMicros?: bigint;
}

/**
 * Puts a committed amount where router checks reservations, unless a copy is already there:
 * ledger overwrites that copy after every commit, so an existing one is never older than
 * the value read here (NX avoids replacing a newer one written meanwhile). Returns the copy.
 */
async function loadUnlessPresent(redis: Redis, key: string, committed: bigint): Promise<bigint> {
  await redis.set(key, committed.toString(), { NX: true });
  return BigInt((await redis.get(key)) ?? committed);
}

/** LoadBalance: an account's balance and, for a key of that account, what the key has spent. */
export function createBalanceLoader(database: Database, redis: Redis, namespace: string) {
  return async (accountId: string, keyId?: string): Promise<LoadedBalance> => {
    const account = await findAccount(database, accountId);
    const keys = billingKeys(namespace, accountId);
    const balanceMicros = await loadUnlessPresent(redis, keys.balance, account.balanceMicros);
    if (keyId === undefined) return { balanceMicros };
    // A malformed id names no key; Postgres would refuse it as a uuid.
    const key = !z.uuid().safeParse(keyId).success
      ? null
      : await database.apiKey.findFirst({ where: { id: keyId, accountId }, select: { spentMicros: true } });
    if (!key) throw keyNotFound(keyId);
    return { balanceMicros, keySpentMicros: await loadUnlessPresent(redis, keys.keySpent(keyId), key.spentMicros) };
  };
}
