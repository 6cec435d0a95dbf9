import { LogCapture } from "@gateway/proto/common/v1/common";
import type { Prisma } from "../generated/prisma/client.js";
import type { UsageRow } from "./usage-rows.js";

const captureNames = new Map([
  [LogCapture.LOG_CAPTURE_FULL, "full"],
  [LogCapture.LOG_CAPTURE_METADATA, "metadata"],
]);

interface LogRow {
  requestId: string;
  accountId: string;
  capture: string;
  requestBody: string | null;
  responseBody: string | null;
  truncated: boolean;
  errorMessage: string | null;
  createdAt: string;
}

/** Postgres text cannot hold NUL, and one refused row would fail the whole batch on every retry. */
const storable = (text: string) => (text.includes("\0") ? text.replaceAll("\0", "") : text) || null;

/**
 * What the log keeps of a row: bodies only at capture full, the error at both levels. An
 * event without a log, or captured at any other level, keeps nothing.
 */
function logRow(row: UsageRow): LogRow | undefined {
  const capture = row.log && captureNames.get(row.log.capture);
  if (!row.log || !capture) return undefined;
  const full = row.log.capture === LogCapture.LOG_CAPTURE_FULL;
  return {
    requestId: row.requestId,
    accountId: row.accountId,
    capture,
    requestBody: full ? storable(row.log.requestBody) : null,
    responseBody: full ? storable(row.log.responseBody) : null,
    truncated: full && row.log.truncated,
    errorMessage: storable(row.log.errorMessage),
    createdAt: row.startedAt.toISOString(),
  };
}

/** Stores the request logs the inserted rows' events carried, dated when their requests started. */
export async function storeRequestLogs(
  transaction: Prisma.TransactionClient,
  inserted: readonly UsageRow[],
): Promise<void> {
  const logs = inserted.map(logRow).filter((log) => log !== undefined);
  if (logs.length === 0) return;
  await transaction.$executeRaw`
    INSERT INTO ledger.request_logs (
      request_id, account_id, capture, request_body, response_body, truncated, error_message, created_at)
    SELECT * FROM unnest(
      ${logs.map((log) => log.requestId)}::text[],
      ${logs.map((log) => log.accountId)}::uuid[],
      ${logs.map((log) => log.capture)}::text[],
      ${logs.map((log) => log.requestBody)}::text[],
      ${logs.map((log) => log.responseBody)}::text[],
      ${logs.map((log) => log.truncated)}::boolean[],
      ${logs.map((log) => log.errorMessage)}::text[],
      ${logs.map((log) => log.createdAt)}::timestamptz[])
    ON CONFLICT (request_id) DO NOTHING`;
}
