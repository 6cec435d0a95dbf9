import { findAccount } from "../accounts/find-account.js";
import type { Database } from "../database.js";

/** An account's most recent usage records, newest first. */
export async function listUsage(database: Database, accountId: string, limit: number) {
  await findAccount(database, accountId);
  return database.usageRecord.findMany({
    where: { accountId },
    orderBy: [{ createdAt: "desc" }, { startedAt: "desc" }],
    take: limit,
  });
}
