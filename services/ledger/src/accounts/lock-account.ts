import type { Prisma } from "../generated/prisma/client.js";

/**
 * Holds the account's creation lock until the transaction ends, so two requests counting what
 * the account holds cannot both pass a cap. An advisory lock rather than the account's row,
 * which billing's debits lock: a customer making keys never waits on usage settling.
 */
export async function lockAccount(transaction: Prisma.TransactionClient, accountId: string): Promise<void> {
  await transaction.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended(${`account-holdings:${accountId}`}, 0))`;
}
