import type { Redis } from "@gateway/shared";
import { billingKeys } from "@gateway/shared";
import type { Database } from "../database.js";
import { findAccount } from "./find-account.js";

/**
 * Puts an account's balance where router checks reservations, unless a copy is already
 * there: ledger overwrites that copy after every commit, so an existing one is never older
 * than the value read here (NX avoids replacing a newer one written meanwhile).
 */
export function createBalanceLoader(database: Database, redis: Redis, namespace: string) {
  return async (accountId: string): Promise<bigint> => {
    const account = await findAccount(database, accountId);
    const key = billingKeys(namespace, accountId).balance;
    await redis.set(key, account.balanceMicros.toString(), { NX: true });
    const current = await redis.get(key);
    return BigInt(current ?? account.balanceMicros);
  };
}
