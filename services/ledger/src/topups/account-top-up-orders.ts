import { newestFirst, type Position, rowsAfter } from "../account-api/cursor.js";
import type { Database } from "../database.js";
import { topUpOrderNotFound } from "../ledger-errors.js";

/** One of the account's orders; another account's number is answered like an unknown one. */
export async function findAccountTopUpOrder(database: Database, accountId: string, outTradeNo: string) {
  const order = await database.topUpOrder.findFirst({ where: { accountId, outTradeNo } });
  if (!order) throw topUpOrderNotFound(outTradeNo);
  return order;
}

/** A page of the account's orders, newest first by keyset on (created_at, id); reads `limit + 1` rows (see page.ts). */
export function findTopUpOrderPage(database: Database, accountId: string, limit: number, after?: Position) {
  return database.topUpOrder.findMany({
    where: { accountId, ...rowsAfter(after) },
    orderBy: newestFirst,
    take: limit + 1,
  });
}
