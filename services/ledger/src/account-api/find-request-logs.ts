import { hasNoNul } from "@gateway/platform";
import type { Database } from "../database.js";
import { Prisma } from "../generated/prisma/client.js";
import { requestLogNotFound } from "../ledger-errors.js";
import type { ListFilter } from "./list-filter.js";

/** `ok`, `error` (any other outcome) or one outcome. */
export const LOG_STATUSES = ["ok", "error", "client_cancelled", "vendor_error", "stream_broken"] as const;
export type LogStatus = (typeof LOG_STATUSES)[number];

export interface LogFilter extends ListFilter {
  status?: LogStatus | undefined;
}

const outcomeCondition = (status: LogStatus) =>
  status === "error" ? Prisma.sql`u.outcome <> 'ok'` : Prisma.sql`u.outcome = ${status}`;

/**
 * One page of an account's logged requests (a request log row and its usage record),
 * newest first by keyset on the log's (created_at, request_id). Only the page's ids come
 * from SQL (the filters span both tables); the rows themselves are read through Prisma.
 */
export async function findRequestLogs(database: Database, accountId: string, filter: LogFilter) {
  const { from, to, model, keyId, status, after } = filter;
  const conditions = [Prisma.sql`l.account_id = ${accountId}::uuid`];
  if (from) conditions.push(Prisma.sql`l.created_at >= ${from.toISOString()}::timestamptz`);
  if (to) conditions.push(Prisma.sql`l.created_at < ${to.toISOString()}::timestamptz`);
  if (model !== undefined) conditions.push(Prisma.sql`u.model = ${model}`);
  if (keyId !== undefined) conditions.push(Prisma.sql`u.key_id = ${keyId}::uuid`);
  if (status !== undefined) conditions.push(outcomeCondition(status));
  if (after) {
    conditions.push(
      Prisma.sql`(l.created_at, l.request_id) < (${after.createdAt.toISOString()}::timestamptz, ${after.id})`,
    );
  }
  const page = await database.$queryRaw<Array<{ request_id: string }>>`
    SELECT l.request_id
    FROM ledger.request_logs l
    JOIN ledger.usage_records u ON u.request_id = l.request_id AND u.account_id = l.account_id
    WHERE ${Prisma.join(conditions, " AND ")}
    ORDER BY l.created_at DESC, l.request_id DESC
    LIMIT ${filter.limit + 1}`;
  return findLoggedRequests(
    database,
    accountId,
    page.map((row) => row.request_id),
  );
}

/** The logged requests with these ids that belong to the account, in the order given. */
export async function findLoggedRequests(database: Database, accountId: string, requestIds: string[]) {
  const where = { accountId, requestId: { in: requestIds } };
  const [logs, records] = await Promise.all([
    database.requestLog.findMany({ where }),
    database.usageRecord.findMany({ where }),
  ]);
  const recordOf = new Map(records.map((record) => [record.requestId, record]));
  const logOf = new Map(logs.map((log) => [log.requestId, log]));
  return requestIds.flatMap((requestId) => {
    const log = logOf.get(requestId);
    const record = recordOf.get(requestId);
    return log && record ? [{ log, record }] : [];
  });
}

/** One of the account's logged requests; another account's request id is answered exactly like an unknown one. */
export async function findLoggedRequest(database: Database, accountId: string, requestId: string) {
  // No stored id has a NUL, and Postgres would refuse to compare one.
  const [logged] = hasNoNul(requestId) ? await findLoggedRequests(database, accountId, [requestId]) : [];
  if (!logged) throw requestLogNotFound(requestId);
  return logged;
}
