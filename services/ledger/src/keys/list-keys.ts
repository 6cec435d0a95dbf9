import type { Database } from "../database.js";
import { accountNotFound } from "../ledger-errors.js";

/** An account's keys, newest first. Hashes stay inside the ledger. */
export async function listKeys(database: Database, accountId: string) {
  const account = await database.account.findUnique({
    where: { id: accountId },
    select: { apiKeys: { orderBy: { createdAt: "desc" }, omit: { keyHash: true } } },
  });
  if (!account) throw accountNotFound(accountId);
  return account.apiKeys;
}
