import type { Database } from "../database.js";
import { newestFirst, rowsAfter } from "./cursor.js";
import type { LogStatus } from "./find-request-logs.js";
import type { ListFilter } from "./list-filter.js";

const outcomeWhere = (status: LogStatus | undefined) =>
  status === undefined ? {} : { outcome: status === "error" ? { not: "ok" } : status };

/**
 * One page of an account's usage records, newest first, by keyset on (created_at, id), so a
 * page costs the same however deep it is. Reads `limit + 1` rows: see page.ts.
 */
export function findUsagePage(
  database: Database,
  accountId: string,
  filter: ListFilter & { status?: LogStatus | undefined },
) {
  const { after } = filter;
  return database.usageRecord.findMany({
    where: {
      accountId,
      model: filter.model,
      keyId: filter.keyId,
      ...outcomeWhere(filter.status),
      createdAt: { gte: filter.from, lt: filter.to },
      ...rowsAfter(after),
    },
    orderBy: newestFirst,
    take: filter.limit + 1,
  });
}
