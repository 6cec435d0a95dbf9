import { findAccount } from "../accounts/find-account.js";
import { lockAccount } from "../accounts/lock-account.js";
import type { Database } from "../database.js";
import type { Prisma } from "../generated/prisma/client.js";
import { accountCapReached, unknownModelGroup } from "../ledger-errors.js";
import { apiKeyPrefix, generateApiKey, hashApiKey } from "./api-key.js";

export interface NewKey {
  accountId: string;
  group: string;
  name: string;
  expiresAt?: Date | undefined;
  // Micro-yuan this key may spend in all; no cap when absent.
  spendCapMicros?: bigint | undefined;
  // May read the account's request logs; off unless asked for.
  canReadLogs?: boolean | undefined;
  // An operator-chosen key (the demo key of `pnpm start`); a random one otherwise.
  apiKey?: string | undefined;
}

/**
 * Stores a new key for an existing account and returns it with its clear text, which is
 * shown to the caller once and never stored (only its hash and prefix are).
 */
export async function insertKey(transaction: Prisma.TransactionClient, input: NewKey) {
  const group = await transaction.modelGroup.findUnique({ where: { name: input.group }, select: { name: true } });
  if (!group) throw unknownModelGroup(input.group);
  const apiKey = input.apiKey ?? generateApiKey();
  const key = await transaction.apiKey.create({
    data: {
      accountId: input.accountId,
      name: input.name,
      modelGroup: input.group,
      keyHash: hashApiKey(apiKey),
      keyPrefix: apiKeyPrefix(apiKey),
      expiresAt: input.expiresAt ?? null,
      spendCapMicros: input.spendCapMicros ?? null,
      canReadLogs: input.canReadLogs ?? false,
    },
  });
  return { key, apiKey };
}

/** Drops cached answers for these key hashes (ledger's Redis cache of ResolveKey). */
export type ForgetCachedKeys = (keyHashes: string[]) => Promise<void>;

/**
 * Creates another key for an existing account. A chosen key may have been tried, and refused,
 * a moment ago: its cached refusal is dropped so it works at once.
 */
export async function createKey(
  database: Database,
  forgetCachedKeys: ForgetCachedKeys,
  input: NewKey,
  maxKeys = Number.POSITIVE_INFINITY,
) {
  const created = await database.$transaction(async (transaction) => {
    await findAccount(transaction, input.accountId);
    if (Number.isFinite(maxKeys)) {
      // Serialised per account, so simultaneous creations cannot pass the cap together.
      await lockAccount(transaction, input.accountId);
      const held = await transaction.apiKey.count({ where: { accountId: input.accountId, revokedAt: null } });
      if (held >= maxKeys) throw accountCapReached("API keys", maxKeys, "revoke one first");
    }
    return insertKey(transaction, input);
  });
  await forgetCachedKeys([created.key.keyHash]);
  return created;
}
