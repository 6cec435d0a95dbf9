import type { Database } from "../database.js";
import { newestFirst, rowsAfter } from "./cursor.js";
import type { ListFilter } from "./list-filter.js";

/**
 * One page of an account's usage records, newest first, by keyset on (created_at, id), so a
 * page costs the same however deep it is. Reads `limit + 1` rows: see page.ts.
 */
export function findUsagePage(database: Database, accountId: string, filter: ListFilter) {
  const { after } = filter;
  return database.usageRecord.findMany({
    where: {
      accountId,
      model: filter.model,
      keyId: filter.keyId,
      createdAt: { gte: filter.from, lt: filter.to },
      ...rowsAfter(after),
    },
    orderBy: newestFirst,
    take: filter.limit + 1,
  });
}
