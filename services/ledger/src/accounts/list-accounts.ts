import { newestFirst, type Position, rowsAfter } from "../account-api/cursor.js";
import type { Database } from "../database.js";

/** A page of every account, newest first; reads `limit + 1` rows (see account-api/page.ts). */
export function findAccountPage(database: Database, limit: number, after?: Position) {
  return database.account.findMany({ where: rowsAfter(after), orderBy: newestFirst, take: limit + 1 });
}
