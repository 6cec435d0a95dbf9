import type { Redis } from "@gateway/platform";
import { z } from "zod";
import type { Database } from "../database.js";
import { keyNotFound } from "../ledger-errors.js";
import { writeBalanceCopy, writeKeySpentCopy } from "./committed-copies.js";
import { findAccount } from "./find-account.js";

export interface LoadedBalance {
  balanceMicros: bigint;
  /** Only when a key was asked for. */
  keySpentMicros?: bigint;
}

/** LoadBalance: an account's balance and, for a key of that account, what the key has spent. */
export function createBalanceLoader(database: Database, redis: Redis, namespace: string) {
  return async (accountId: string, keyId?: string): Promise<LoadedBalance> => {
    const account = await findAccount(database, accountId);
    // What the copy holds afterwards: a newer commit may have written it meanwhile, and that one stands.
    const balanceMicros = BigInt(
      (await writeBalanceCopy(redis, namespace, accountId, {
        micros: account.balanceMicros,
        version: account.balanceVersion,
      })) as string,
    );
    if (keyId === undefined) return { balanceMicros };
    // A malformed id names no key; Postgres would refuse it as a uuid.
    const key = !z.uuid().safeParse(keyId).success
      ? null
      : await database.apiKey.findFirst({ where: { id: keyId, accountId }, select: { spentMicros: true } });
    if (!key) throw keyNotFound(keyId);
    const keySpentMicros = BigInt(
      (await writeKeySpentCopy(redis, namespace, accountId, keyId, key.spentMicros)) as string,
    );
    return { balanceMicros, keySpentMicros };
  };
}
