import { once } from "node:events";
import type { ListUsageResponse } from "@gateway/proto/ledger/v1/console";
import type { Response } from "express";
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

// RFC 4180 quoting; a leading =, +, - or @ is defused so a spreadsheet never runs a model name as a formula.
export function csvCell(value: unknown): string {
  let text = value === null || value === undefined ? "" : String(value);
  if (/^[=+\-@]/.test(text)) text = `'${text}`;
  return /[",\r\n']/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** Writes every page of the account's matching usage as CSV, page by page, minding back-pressure. */
export async function streamUsageCsv(
  response: Response,
  page: (cursor: string) => Promise<ListUsageResponse>,
): Promise<void> {
  let next = await page("");
  response.status(200);
  response.setHeader("content-type", "text/csv; charset=utf-8");
  response.setHeader("content-disposition", 'attachment; filename="usage.csv"');
  response.write(`${columns.join(",")}\r\n`);
  for (;;) {
    const rows = next.records.map((record) => {
      const json = usageJson(record);
      return `${columns.map((column) => csvCell(json[column])).join(",")}\r\n`;
    });
    if (rows.length > 0 && !response.write(rows.join(""))) await once(response, "drain");
    if (!next.nextCursor || response.destroyed) break;
    next = await page(next.nextCursor);
  }
  response.end();
}
