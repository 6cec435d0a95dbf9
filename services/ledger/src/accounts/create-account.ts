import type { Database } from "../database.js";
import { type ForgetCachedKeys, insertKey } from "../keys/create-key.js";

export interface NewAccount {
  name: string;
  group: string;
  initialCreditMicros: bigint;
  apiKey?: string | undefined;
  // Whether the first key may read the account's request logs.
  canReadLogs?: boolean | undefined;
}

/**
 * Creates an account, its opening credit (recorded as a Credit so every balance is
 * explained by credits and usage) and its first key, all or nothing; then drops any cached
 * refusal of that key (an operator-chosen key, such as `pnpm start`'s demo key, may have been tried).
 */
export async function createAccount(database: Database, forgetCachedKeys: ForgetCachedKeys, input: NewAccount) {
  const created = await database.$transaction(async (transaction) => {
    const account = await transaction.account.create({
      data: { name: input.name, balanceMicros: input.initialCreditMicros },
    });
    if (input.initialCreditMicros > 0n) {
      await transaction.credit.create({
        data: {
          accountId: account.id,
          amountMicros: input.initialCreditMicros,
          idempotencyKey: `account-opening:${account.id}`,
        },
      });
    }
    const { key, apiKey } = await insertKey(transaction, {
      accountId: account.id,
      group: input.group,
      name: "default",
      apiKey: input.apiKey,
      canReadLogs: input.canReadLogs,
    });
    return { account, key, apiKey };
  });
  await forgetCachedKeys([created.key.keyHash]);
  return created;
}
