import { newestFirst, type Position, rowsAfter } from "../account-api/cursor.js";
import type { Database } from "../database.js";
import { topUpOrderNotFound } from "../ledger-errors.js";
import type { TopUpMethodName, TopUpOrderStateName } from "./payment-provider.js";

export interface OrderFilter {
  state?: TopUpOrderStateName | undefined;
  provider?: TopUpMethodName | undefined;
  accountId?: string | undefined;
  /** Created at or after `from`, before `to`. */
  from?: Date | undefined;
  to?: Date | undefined;
  limit: number;
  after?: Position | undefined;
}

/** A page of every account's orders, newest first by keyset on (created_at, id); `limit + 1` rows (see page.ts). */
export function findAllTopUpOrderPage(database: Database, filter: OrderFilter) {
  return database.topUpOrder.findMany({
    where: {
      AND: [
        {
          state: filter.state,
          provider: filter.provider,
          accountId: filter.accountId,
          createdAt: { gte: filter.from, lt: filter.to },
        },
        rowsAfter(filter.after) ?? {},
      ],
    },
    orderBy: newestFirst,
    take: filter.limit + 1,
    // Operators tell accounts apart by name (ids alone cannot be read).
    include: { account: { select: { name: true } } },
  });
}

/** Any account's order by its number. */
export async function findTopUpOrder(database: Database, outTradeNo: string) {
  const order = await database.topUpOrder.findUnique({ where: { outTradeNo } });
  if (!order) throw topUpOrderNotFound(outTradeNo);
  return order;
}
