import type { ListUsageResponse } from "@gateway/proto/ledger/v1/console";
import type { Response } from "express";
import { streamCsv } from "../http/csv.js";
import { usageJson } from "../http/to-json.js";

const columns = [
  "createdAt",
  "requestId",
  "keyId",
  "model",
  "vendor",
  "endpoint",
  "promptTokens",
  "completionTokens",
  "totalTokens",
  "costMicros",
  "latencyMs",
  "stream",
  "outcome",
  "errorCode",
] as const;

/** Writes every page of the account's matching usage as CSV. */
export function streamUsageCsv(
  response: Response,
  page: (cursor: string) => Promise<ListUsageResponse>,
): Promise<void> {
  return streamCsv(response, "usage.csv", columns, async (cursor) => {
    const { records, nextCursor } = await page(cursor);
    return { rows: records.map(usageJson), nextCursor };
  });
}
