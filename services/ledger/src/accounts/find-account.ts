import type { Prisma } from "../generated/prisma/client.js";
import { accountNotFound } from "../ledger-errors.js";

/** The account, or the OpenAI-shaped 404 every route answers for an unknown one. Works inside a transaction too. */
export async function findAccount(client: Prisma.TransactionClient, accountId: string) {
  const account = await client.account.findUnique({ where: { id: accountId } });
  if (!account) throw accountNotFound(accountId);
  return account;
}
