import type { SqlPool } from "@gateway/platform";
import type { RequestLogEntry } from "@gateway/proto/events/v1/events";
import { requestLogFields } from "../usage/request-log-fields.js";

/**
 * Stores the request log entries router sent apart from their usage events, in ONE statement.
 * The usage record is written on its own path, before or after: the logs' reads join the two
 * on the request id, so an entry shows once both are in. A redelivered or republished entry
 * changes nothing (ON CONFLICT DO NOTHING); rows go in request_id order, so two statements
 * holding copies of the same entries wait for each other in one order instead of deadlocking.
 */
export const recordRequestLogsSql = `
INSERT INTO ledger.request_logs (
  request_id, account_id, capture, request_body, response_body, truncated, error_message, created_at)
SELECT request_id, account_id, log_capture, request_body, response_body, truncated, error_message, created_at
FROM json_to_recordset($1::json) AS row(
  request_id text, account_id uuid, log_capture text, request_body text, response_body text,
  truncated boolean, error_message text, created_at timestamptz)
WHERE log_capture IS NOT NULL
ORDER BY request_id
ON CONFLICT (request_id) DO NOTHING`;

/** Stores the entries (those already stored are left as they are); resolves to how many were new. */
export async function recordRequestLogs(pool: SqlPool, entries: readonly RequestLogEntry[]): Promise<number> {
  const now = new Date();
  const rows = entries.map(({ requestId, accountId, startedAtMs, log }) => ({
    request_id: requestId,
    account_id: accountId,
    // Dated like the entries ledger stores with their usage records: by the request's start.
    created_at: (startedAtMs > 0 ? new Date(startedAtMs) : now).toISOString(),
    ...requestLogFields(log),
  }));
  const { rowCount } = await pool.query({
    name: "record-request-logs",
    text: recordRequestLogsSql,
    values: [JSON.stringify(rows)],
  });
  return rowCount ?? 0;
}
